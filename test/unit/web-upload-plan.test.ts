import { describe, expect, it } from "vitest";
import {
  inBatches,
  planUpload,
  replaceQuestion,
  type UploadRules,
} from "../../web/src/components/upload-plan.js";

const RULES: UploadRules = {
  extensions: [".txt", ".md", ".jsonl"],
  maxFileBytes: 1024 * 1024,
  maxFiles: 2,
  files: [
    { name: "notes.md", documents: [{ id: "doc-1", title: "Field notes" }] },
    {
      name: "lines.jsonl",
      documents: [
        { id: "a", title: "A" },
        { id: "b", title: "B" },
      ],
    },
  ],
};

const file = (name: string, size = 10) => ({ name, size });

describe("web app: what an upload sends", () => {
  it("leaves out the files the server would refuse the whole upload for, saying why", () => {
    const plan = planUpload(
      [
        file("a.txt"),
        file("tool.exe"),
        file("README"),
        file("big.md", 2 * 1024 * 1024),
        file("a.txt"),
        file("B.TXT"),
        file("dir\\c.txt"),
        file("bell\u0007.txt"),
        file(`${"n".repeat(252)}.txt`),
        file(" lead.txt"),
      ],
      RULES,
    );
    expect(plan.send.map((f) => f.name)).toEqual(["a.txt", "B.TXT"]);
    expect(plan.skipped.slice(4).map((s) => s.reason)).toEqual([
      "the name holds a folder separator",
      "the name holds a control character",
      "the server takes names of at most 255 characters",
      "the name begins or ends with a space",
    ]);
    expect(plan.skipped.slice(0, 4)).toEqual([
      { name: "tool.exe", reason: ".exe files are not indexed (supported: .txt .md .jsonl)" },
      { name: "README", reason: "a file without an extension is not indexed (supported: .txt .md .jsonl)" },
      { name: "big.md", reason: "larger than the server's limit of 1 MB per file (KGRAG_UPLOAD_MAX_MB)" },
      { name: "a.txt", reason: "another file of this name is in the same upload" },
    ]);
    expect(plan.replacing).toEqual([]);
  });

  it("names the files that replace documents uploaded under the same name, and what they made", () => {
    const plan = planUpload([file("notes.md"), file("new.txt"), file("lines.jsonl")], RULES);
    expect(plan.send.map((f) => f.name)).toEqual(["notes.md", "new.txt", "lines.jsonl"]);
    expect(plan.replacing.map(({ file, titles }) => [file.name, titles])).toEqual([
      ["notes.md", ["Field notes"]],
      ["lines.jsonl", ["A", "B"]],
    ]);
    const question = replaceQuestion(plan.replacing);
    expect(question).toContain("• notes.md (Field notes)");
    expect(question).toContain("• lines.jsonl (A, B)");
    expect(question).toMatch(/Cancel uploads only the other files/);
  });

  it("sends as many uploads as the server's files-per-upload limit needs", () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([], 2)).toEqual([]);
  });
});
