import { describe, expect, it } from "vitest";
import { InvalidSourceDocumentError, parseSourceDocuments } from "../../src/ingest/source-input.js";

const refusal = (inputs: unknown): string => {
  try {
    parseSourceDocuments(inputs);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSourceDocumentError);
    return (error as Error).message;
  }
  throw new Error("expected the documents to be refused");
};

describe("documents handed to Kgrag.index", () => {
  it("fill a left-out path and metadata, and keep what was given", () => {
    expect(
      parseSourceDocuments([
        { id: "obj1", title: "Harbor", text: "Harbor Light opened in 2021." },
        {
          id: "obj2",
          title: "",
          text: "x",
          path: "/data/a.txt",
          metadata: { year: 2021, ok: true, by: "me" },
        },
      ]),
    ).toEqual([
      { id: "obj1", title: "Harbor", path: null, text: "Harbor Light opened in 2021.", metadata: {} },
      {
        id: "obj2",
        title: "",
        path: "/data/a.txt",
        text: "x",
        metadata: { year: 2021, ok: true, by: "me" },
      },
    ]);
  });

  it("are refused naming the document and the field", () => {
    expect(refusal([{ id: "", title: "t", text: "x" }])).toMatch(
      /documents\[0\]: id must be a non-empty string/,
    );
    expect(refusal([{ id: 7, title: "t", text: "x" }])).toMatch(
      /documents\[0\]: id must be a non-empty string/,
    );
    expect(
      refusal([
        { id: "a", title: "t", text: "x" },
        { id: "b", title: "t", text: 42 },
      ]),
    ).toMatch(/documents\[1\] \(id "b"\): text must be a string/);
    expect(refusal([{ id: "c", title: "t" }])).toMatch(/documents\[0\] \(id "c"\): text is required/);
    expect(refusal([{ id: "d", title: "t", text: "x", metadata: { tags: ["a"] } }])).toMatch(
      /\(id "d"\): metadata\.tags must be a string, number or boolean/,
    );
    expect(refusal([{ id: "e", title: "t", text: "x", path: 3 }])).toMatch(/path must be a string or null/);
  });

  it("are refused when ids repeat, or paths and documents are mixed", () => {
    const doc = { id: "same", title: "t", text: "x" };
    expect(refusal([doc, { ...doc, text: "y" }])).toMatch(
      /documents\[1\] \(id "same"\): id repeats documents\[0\]/,
    );
    expect(refusal([doc, "./docs"])).toMatch(/documents\[1\]: must be a document object.*not both/);
    expect(refusal({ id: "x" })).toMatch(/pass an array/);
  });

  it("list every problem at once, up to a few", () => {
    const bad = Array.from({ length: 8 }, (_, n) => ({ id: `b${n}`, title: "t", text: null }));
    const message = refusal(bad);
    expect(message).toMatch(/documents\[4\] \(id "b4"\)/);
    expect(message).not.toMatch(/documents\[5\]/);
    expect(message).toMatch(/and 3 more.*nothing was indexed/);
  });
});
