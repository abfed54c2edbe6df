import { describe, expect, it } from "vitest";
import { briefDetail, skipReason, unparsableReason } from "../../src/ingest/skip-reason.js";
import { UnreadableSourceError } from "../../src/ingest/source-types.js";

describe("skip reasons", () => {
  it("cuts a parser's message to its first sentence, without links", () => {
    const jszip = new Error(
      "Can't find end of central directory : is this a zip file ? If it is, see https://stuk.github.io/jszip/documentation/howto/read_zip.html",
    );
    expect(briefDetail(jszip)).toBe("Can't find end of central directory");
    const mammoth = new Error("Could not find main document part. Are you sure this is a valid .docx file?");
    expect(briefDetail(mammoth)).toBe("Could not find main document part");
    expect(briefDetail(new Error("see https://example.org/help"))).toBe("see");
    expect(briefDetail("x".repeat(200))).toHaveLength(80);
  });

  it("says what a file is not before the parser's gist, and keeps our own reasons whole", () => {
    expect(unparsableReason("DOCX", new Error("Corrupted zip. More text follows."))).toBe(
      "not a readable .docx file (corrupt or not a Word document): Corrupted zip",
    );
    expect(unparsableReason("PDF", new Error(""))).toBe("not a readable .pdf file (corrupt or not a PDF)");
    const ours = new UnreadableSourceError("binary content (NUL bytes): not a text file. Really.");
    expect(skipReason(ours)).toBe(ours.message);
    expect(skipReason(new Error("EACCES: permission denied, open '/x/a.txt'"))).toBe(
      "cannot read file: EACCES: permission denied, open '/x/a.txt'",
    );
  });
});
