import { describe, expect, it } from "vitest";
import { metadataLines, metadataPatch } from "../../web/src/components/metadata-edit.js";

describe("the metadata editor's PATCH body", () => {
  const metadata = { team: "lights", year: 1890, public: true, pages: [1, 2] };
  const lines = () => metadataLines(metadata).lines;

  it("edits scalar keys only, showing the others apart", () => {
    expect(lines().map((line) => [line.key, line.value])).toEqual([
      ["team", "lights"],
      ["year", "1890"],
      ["public", "true"],
    ]);
    expect(metadataLines(metadata).fixed).toEqual([["pages", [1, 2]]]);
  });

  it("sends nothing for lines left as they were, and ignores a blank line added", () => {
    expect(metadataPatch(metadata, [...lines(), { id: 9, key: "", value: "" }])).toEqual({});
  });

  it("keeps each key's type when the text still reads as it, and removes keys no line names", () => {
    const [team, year, flag] = lines();
    const edited = [
      { ...team!, value: "1900" },
      { ...year!, value: "1891" },
      { ...flag!, key: "open" },
      { id: 7, key: "since", value: "2015" },
      { id: 8, key: "note", value: "old light" },
    ];
    expect(metadataPatch(metadata, edited)).toEqual({
      team: "1900",
      year: 1891,
      open: true,
      since: 2015,
      note: "old light",
      public: null,
    });
  });

  it("sends a number key's non-numeric text as text", () => {
    const [, year] = lines();
    expect(
      metadataPatch(metadata, [...lines().filter((l) => l.key !== "year"), { ...year!, value: "unknown" }]),
    ).toEqual({
      year: "unknown",
    });
  });

  it("sends Infinity and NaN as text: as numbers they go out as JSON null, which removes the key", () => {
    const [, year] = lines();
    const edited = [
      ...lines().filter((l) => l.key !== "year"),
      { ...year!, value: "Infinity" },
      { id: 7, key: "limit", value: "NaN" },
    ];
    // As the body goes over the wire.
    expect(JSON.parse(JSON.stringify(metadataPatch(metadata, edited)))).toEqual({
      year: "Infinity",
      limit: "NaN",
    });
  });

  it("keeps a renamed key's type: a text that reads as a number stays text", () => {
    const [code, , flag] = metadataLines({ code: "12345", year: 1890, open: "true" }).lines;
    expect(
      metadataPatch({ code: "12345", year: 1890, open: "true" }, [
        { ...code!, key: "zip" },
        { ...flag!, key: "public" },
      ]),
    ).toEqual({ zip: "12345", public: "true", code: null, year: null, open: null });
  });
});
