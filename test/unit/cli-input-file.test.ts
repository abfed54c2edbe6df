import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readInputFile } from "../../src/cli/input-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-input-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("files named by --batch and --questions", () => {
  it("are read without a UTF-8 byte order mark, so their first JSON line parses", async () => {
    const path = join(dir, "questions.jsonl");
    writeFileSync(path, '\uFEFF{"id":"a","question":"Who founded Kestrel Vision?"}\n');
    const text = await readInputFile(path, "--batch", "questions");
    expect(text.startsWith("{")).toBe(true);
    expect(JSON.parse(text.split("\n")[0] ?? "")).toEqual({
      id: "a",
      question: "Who founded Kestrel Vision?",
    });
  });
});
