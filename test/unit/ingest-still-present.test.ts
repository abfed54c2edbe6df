import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stillPresent } from "../../src/ingest/still-present.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-present-"));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "report.docx"), "corrupt");
  writeFileSync(join(dir, "lines.jsonl"), "{");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const skip = (path: string) => ({ path, reason: "cannot read" });

describe("stillPresent", () => {
  it("holds for an existing file skipped itself, by one of its lines, or by a folder above it", async () => {
    const docx = join(dir, "sub", "report.docx");
    const jsonl = join(dir, "lines.jsonl");
    expect(await stillPresent(docx, [skip(docx)])).toBe(true);
    expect(await stillPresent(jsonl, [{ ...skip(`${jsonl}:12`), unreadable: true as const }])).toBe(true);
    expect(await stillPresent(docx, [skip(join(dir, "sub"))])).toBe(true);
  });

  it("does not hold for a file no skip names, nor for one that no longer exists", async () => {
    const docx = join(dir, "sub", "report.docx");
    const jsonl = join(dir, "lines.jsonl");
    expect(await stillPresent(jsonl, [])).toBe(false);
    expect(await stillPresent(docx, [skip(join(dir, "su"))])).toBe(false);
    expect(await stillPresent(jsonl, [skip(`${jsonl}:x`), skip(`${jsonl}.bak`)])).toBe(false);
    // An empty or duplicate line is read: it cannot be the document that is missing.
    expect(await stillPresent(jsonl, [skip(`${jsonl}:12`), { ...skip(`${jsonl}:3`), docId: "x" }])).toBe(
      false,
    );
    const gone = join(dir, "sub", "gone.txt");
    expect(await stillPresent(gone, [skip(gone)])).toBe(false);
    expect(await stillPresent(join(docx, "inner"), [skip(docx)])).toBe(false);
  });
});
