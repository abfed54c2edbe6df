import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileDocumentId } from "../../src/ingest/loaders.js";
import { createKgrag } from "../../src/kgrag.js";
import { jsonOutput } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { graphSnapshot, workspaceSnapshot } from "../support/graph-snapshot.js";
import {
  llmEnv,
  passage,
  seededRandom,
  startLifecycleServer,
  writeCorpus,
} from "../support/lifecycle-corpus.js";
import type { ScriptedServer } from "../support/scripted-openai-server.js";

/** Small chunks, so one document has several and an edit near its end changes only the last. */
const CHUNKING = { size: 24, overlap: 0 };

function multiPassage(first: number, count: number, seed: number): string {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => passage(first + i, random)).join("\n");
}

describe("updating documents (LLM path, scripted server)", () => {
  let root: string;
  let server: ScriptedServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-update-"));
    server = await startLifecycleServer();
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const open = (name: string) =>
    createKgrag({
      env: llmEnv(server.baseURL),
      config: { workspace: join(root, name), chunking: CHUNKING, merge: { summaryMinFragments: 3 } },
    });

  it("replaces a changed file, pays only for its new chunks, reports and prunes a removed one", async () => {
    const folder = join(root, "corpus");
    const paths = writeCorpus(folder, 6, 3);
    const multi = join(folder, "multi.txt");
    writeFileSync(multi, multiPassage(100, 5, 1));
    const multiId = fileDocumentId(multi);
    const kgrag = await open("ws");
    try {
      await kgrag.index([folder]);
      const oldChunks = new Set((await kgrag.services.store.listChunks(multiId)).map((c) => c.id));
      expect(oldChunks.size).toBeGreaterThan(3);

      // Edit the last passage, remove one file, add one.
      writeFileSync(multi, `${multiPassage(100, 4, 1)}\n${passage(900, seededRandom(9))}`);
      const gone = paths[2] ?? "";
      unlinkSync(gone);
      writeFileSync(join(folder, "new.txt"), passage(901, seededRandom(10)));
      const extractsBefore = server.count("extract");
      const historyBefore = (await kgrag.services.store.listHistory()).length;

      const update = await kgrag.index([folder]);
      expect(update.updated).toEqual([multiId]);
      expect(update.added).toEqual([fileDocumentId(join(folder, "new.txt"))]);
      expect(update.missing).toEqual([{ docId: fileDocumentId(gone), path: gone }]);
      expect(update.removed).toEqual([]);
      const newChunks = (await kgrag.services.store.listChunks(multiId)).map((c) => c.id);
      const changedChunks = newChunks.filter((id) => !oldChunks.has(id));
      expect(changedChunks.length).toBeGreaterThan(0);
      expect(changedChunks.length).toBeLessThan(newChunks.length);
      // Unchanged chunks came from the cache: only the edited chunk(s) and the new file cost a call.
      expect(server.count("extract") - extractsBefore).toBe(changedChunks.length + 1);
      const causes = (await kgrag.services.store.listHistory()).slice(historyBefore).map((e) => e.cause);
      expect(causes).toContain("update document");

      const pruned = await kgrag.index([folder], { prune: true });
      expect(pruned.removed).toEqual([fileDocumentId(gone)]);
      expect(pruned.missing).toEqual([]);
      expect(await kgrag.services.store.getDocument(fileDocumentId(gone))).toBeUndefined();

      const clean = await open("clean");
      try {
        await clean.index([folder]);
        expect(await graphSnapshot(kgrag.services.store)).toEqual(await graphSnapshot(clean.services.store));
      } finally {
        await clean.close();
      }
    } finally {
      await kgrag.close();
    }
  });
});

describe("updating documents (offline, CLI)", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-update-cli-"));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("keeps a corpus read from another folder and line order: records follow it, nothing is re-extracted", async () => {
    const random = seededRandom(5);
    const records = Array.from({ length: 4 }, (_, i) => ({
      id: `d${i}`,
      title: `Doc ${i}`,
      text: passage(i, random),
    }));
    const lines = (order: typeof records) => order.map((r) => JSON.stringify(r)).join("\n");
    const first = join(root, "a", "corpus.jsonl");
    const moved = join(root, "b", "corpus.jsonl");
    mkdirSync(join(root, "a"));
    mkdirSync(join(root, "b"));
    writeFileSync(first, lines(records));
    writeFileSync(moved, lines([...records].reverse()));
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      await kgrag.index([first]);
      const before = await graphSnapshot(kgrag.services.store);
      const historyBefore = (await kgrag.services.store.listHistory()).length;

      const again = await kgrag.index([moved]);
      expect(again.added).toEqual([]);
      expect(again.updated).toEqual([]);
      expect([...again.unchanged].sort()).toEqual(records.map((r) => r.id));
      expect((await kgrag.services.store.listHistory()).length).toBe(historyBefore);
      expect(await graphSnapshot(kgrag.services.store)).toEqual(before);
      const record = await kgrag.services.store.getDocument("d0");
      expect(record?.metadata).toMatchObject({ source: moved, line: 4 });

      // A changed text is still an update.
      writeFileSync(moved, lines([{ ...records[0]!, text: passage(50, random) }, ...records.slice(1)]));
      const edited = await kgrag.index([moved]);
      expect(edited.updated).toEqual(["d0"]);
    } finally {
      await kgrag.close();
    }
  });

  it("`kgrag index --prune` replaces edited files and removes deleted ones, as a clean index would", async () => {
    const folder = join(root, "corpus");
    const paths = writeCorpus(folder, 10, 21);
    // Default settings throughout: the CLI child reads no test configuration.
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    await kgrag.index([folder]);
    await kgrag.close();

    writeFileSync(paths[1] ?? "", multiPassage(300, 3, 2));
    unlinkSync(paths[4] ?? "");
    unlinkSync(paths[7] ?? "");
    const result = await runMain(["index", folder, "--prune", "--json", "--workspace", join(root, "ws")]);
    expect(result.code).toBe(0);
    const summary = jsonOutput<{ updated: number; removed: string[]; missing: unknown[]; documents: number }>(
      result,
    );
    expect(summary.updated).toBe(1);
    expect(summary.removed.sort()).toEqual(
      [fileDocumentId(paths[4] ?? ""), fileDocumentId(paths[7] ?? "")].sort(),
    );
    expect(summary.missing).toEqual([]);
    expect(summary.documents).toBe(8);

    const clean = await createKgrag({ env: {}, config: { workspace: join(root, "clean") } });
    await clean.index([folder]);
    await clean.close();
    expect(await workspaceSnapshot(join(root, "ws"))).toEqual(await workspaceSnapshot(join(root, "clean")));
  });
});
