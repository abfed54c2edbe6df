import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, InvalidSourceDocumentError, type Kgrag } from "../../src/index.js";
import { fileDocumentId } from "../../src/ingest/loaders.js";
import { entityKey } from "../../src/merge/keys.js";
import { runMain } from "../support/cli-in-process.js";

const HARBOR = "Harbor Light Expo opened in Vessen in 2021. Mara Quell gave the opening talk.";
const PRIYA =
  "Priya Natarajan founded Tidewell Robotics in Carrow Bay. Tidewell Robotics builds survey drones.";
const ZH = "火箭在成都发射。李明在成都工作。";

describe("indexing input", () => {
  let root: string;
  let kgrag: Kgrag;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-input-"));
    kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
  });

  afterEach(async () => {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  });

  const entityKeys = async () => new Set((await kgrag.services.store.listEntities()).map((e) => e.key));

  it("indexes documents given without path or metadata, and reports an empty one as skipped", async () => {
    const summary = await kgrag.index([
      { id: "obj1", title: "Harbor", text: HARBOR },
      { id: "obj2", title: "Nothing yet", text: "  " },
    ]);
    expect(summary.added).toEqual(["obj1"]);
    expect(summary.failures).toEqual([]);
    expect(summary.skipped).toEqual([
      { path: "document obj2", reason: "empty document: no text to index", docId: "obj2" },
    ]);
    const stored = await kgrag.services.store.getDocument("obj1");
    expect(stored).toMatchObject({ path: null, metadata: {}, status: "processed" });
    expect(await kgrag.services.store.getDocument("obj2")).toBeUndefined();
  });

  it("refuses bad documents before writing anything, naming the document and field", async () => {
    const bad = [
      { id: "ok", title: "Harbor", text: HARBOR },
      { id: "obj2", title: "t", text: "x", metadata: { tags: ["a", "b"] } },
    ];
    // @ts-expect-error metadata values must be strings, numbers or booleans
    const attempt = kgrag.index(bad);
    await expect(attempt).rejects.toBeInstanceOf(InvalidSourceDocumentError);
    await expect(attempt).rejects.toThrow(/documents\[1\] \(id "obj2"\): metadata\.tags must be a string/);
    expect(await kgrag.services.store.listDocuments()).toEqual([]);
  });

  it("keeps an indexed document whose file is now empty until --prune, and reports it", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "harbor.txt"), HARBOR);
    writeFileSync(join(docs, "priya.txt"), PRIYA);
    await kgrag.index([docs]);
    const harborId = fileDocumentId(join(docs, "harbor.txt"));

    writeFileSync(join(docs, "harbor.txt"), "\n");
    const emptied = await kgrag.index([docs]);
    expect(emptied.skipped).toEqual([
      {
        path: join(docs, "harbor.txt"),
        reason: expect.stringMatching(/empty.*kept.*--prune/),
        docId: harborId,
      },
    ]);
    expect(emptied.missing).toEqual([]);
    expect(emptied.removed).toEqual([]);
    expect((await kgrag.services.store.getDocument(harborId))?.status).toBe("processed");
    expect(await entityKeys()).toContain(entityKey("Harbor Light Expo"));

    const pruned = await kgrag.index([docs], { prune: true });
    expect(pruned.removed).toEqual([harborId]);
    expect(pruned.skipped[0]?.reason).toMatch(/removed/);
    expect(await kgrag.services.store.getDocument(harborId)).toBeUndefined();
    expect(await entityKeys()).not.toContain(entityKey("Harbor Light Expo"));
    expect(pruned.unchanged).toEqual([fileDocumentId(join(docs, "priya.txt"))]);
  });

  it("clears an empty document an earlier version recorded as failed", async () => {
    const empty = join(root, "empty.md");
    writeFileSync(empty, "");
    const now = new Date().toISOString();
    await kgrag.services.store.upsertDocument({
      id: fileDocumentId(empty),
      title: "empty",
      path: empty,
      contentHash: "old",
      status: "failed",
      error: "empty document: no text to index",
      metadata: { source: empty, format: "markdown" },
      chunkCount: 0,
      createdAt: now,
      updatedAt: now,
    });
    const summary = await kgrag.index([empty]);
    expect(summary.removed).toEqual([fileDocumentId(empty)]);
    expect(summary.failed).toBe(0);
    expect(summary.skipped.map((s) => s.reason)).toEqual(["empty document: no text to index"]);
    expect(await kgrag.services.store.listDocuments()).toEqual([]);
  });

  it("makes no entity of a file name, and one of an explicit title the text names", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "priya.txt"), PRIYA);
    writeFileSync(join(docs, "zh.txt"), ZH);
    writeFileSync(
      join(docs, "notes.jsonl"),
      `${JSON.stringify({ id: "n1", title: "Gullwing drone", text: "The Gullwing drone flies for ninety minutes on one charge." })}\n`,
    );
    await kgrag.index([docs]);
    const keys = await entityKeys();
    expect(keys).toContain(entityKey("Priya Natarajan"));
    expect(keys).toContain(entityKey("成都"));
    for (const fileName of ["priya", "priya.txt", "zh", "zh.txt", "notes.jsonl"]) {
      expect(keys).not.toContain(entityKey(fileName));
    }
    expect(keys).toContain(entityKey("Gullwing drone"));
    const titles = (await kgrag.services.store.listDocuments()).map((d) => d.title).sort();
    expect(titles).toEqual(["Gullwing drone", "priya.txt", "zh.txt"]);
  });
});

describe("kgrag index with an empty file", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-input-cli-"));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("exits 0, saying on stderr which file it skipped and why", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "harbor.md"), `# Harbor Light Expo\n\n${HARBOR}`);
    writeFileSync(join(docs, "blank.txt"), " \n");
    const result = await runMain(["index", docs, "--workspace", join(root, "ws"), "--no-communities"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`skipped ${join(docs, "blank.txt")}: empty document: no text to index`);
    expect(result.stdout).toMatch(/1 new, .*1 input\(s\) skipped/);
    expect(result.stdout).not.toMatch(/FAILED|again to retry/);
  });
});
