import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ClusteredVectors } from "../../bench/support/clustered-vectors.js";
import { type VectorIndexConfig, VectorIndexSchema } from "../../src/config.js";
import { ANN_FOLDER, AnnFiles } from "../../src/storage/sqlite/ann-file.js";
import { AnnVectors } from "../../src/storage/sqlite/ann-vectors.js";
import { openDatabase, Sql } from "../../src/storage/sqlite/connection.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import type { VectorItem } from "../../src/types.js";

const opened: SqliteGraphStore[] = [];
const closers: (() => void)[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const store of opened.splice(0)) await store.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Segments past maxSegments (2) make a fold due; answers are compared with exact search. */
const SETTINGS = {
  kind: "ann",
  minVectors: 0,
  segmentShare: 0.5,
  maxSegments: 2,
  foldInBackground: true,
  rescore: 3,
  oversample: 3,
} as const;

function tempWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-fold-"));
  folders.push(dir);
  return dir;
}

function configOf(settings: Partial<VectorIndexConfig> = {}): VectorIndexConfig {
  return VectorIndexSchema.parse({ ...SETTINGS, ...settings });
}

async function open(workspace: string, settings: Partial<VectorIndexConfig> = {}): Promise<SqliteGraphStore> {
  const store = await openSqliteStore(workspace, { vectorIndex: configOf(settings) });
  opened.push(store);
  return store;
}

function items(points: ClusteredVectors, count: number, prefix: string): VectorItem[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    textHash: "h",
    vector: Array.from(points.next()),
  }));
}

/** The main file and segment files the manifest names, in its order. */
function indexFiles(workspace: string): string[] {
  const manifest = new AnnFiles(workspace).manifest("chunks");
  return manifest ? [manifest.file, ...manifest.segments.map((segment) => segment.file)] : [];
}

function usearchFiles(workspace: string): string[] {
  return readdirSync(join(workspace, ANN_FOLDER))
    .filter((name) => name.endsWith(".usearch"))
    .sort();
}

async function expectExactAnswers(store: SqliteGraphStore, exact: SqliteGraphStore, queries: number[][]) {
  for (const query of queries) {
    const ids = async (s: SqliteGraphStore) =>
      (await s.searchVectors("chunks", query, 10)).map((hit) => hit.id);
    expect(await ids(store)).toEqual(await ids(exact));
  }
}

/** A workspace with a 400-row main file and two segments: the next refresh with new rows finds a fold due. */
async function withTwoSegments(workspace: string, points: ClusteredVectors, store: SqliteGraphStore) {
  await store.upsertVectors("chunks", items(points, 400, "v"));
  await store.refreshIndexes();
  await store.upsertVectors("chunks", items(points, 20, "a"));
  await store.deleteVectors("chunks", ["v7"]);
  await store.refreshIndexes();
  await store.upsertVectors("chunks", items(points, 10, "b"));
  await store.refreshIndexes();
  expect(indexFiles(workspace)).toHaveLength(3);
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("HNSW folds in the background", () => {
  it("leaves a due fold to a process of its own: the writer saves a segment, the process folds, answers stay exact", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 31);
    const store = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    const [main] = indexFiles(workspace);
    const queries = items(points, 12, "q").map((item) => item.vector);

    await store.upsertVectors("chunks", items(points, 10, "c"));
    await store.refreshIndexes();
    // The writer did not fold: the same main file with a third segment (a process starts in far
    // more than the time to get here).
    expect(indexFiles(workspace)).toEqual([main, expect.any(String), expect.any(String), expect.any(String)]);
    await expectExactAnswers(store, exact, queries);

    await waitFor(() => indexFiles(workspace).length === 1, 60_000);
    const [folded] = indexFiles(workspace);
    expect(folded).not.toBe(main);
    expect(usearchFiles(workspace)).toEqual([folded]);
    await expectExactAnswers(store, exact, queries);
    const reopened = await open(workspace);
    await expectExactAnswers(reopened, exact, queries);
    expect(
      idsOfNearest(await reopened.searchVectors("chunks", items(points, 1, "x")[0]?.vector ?? [], 440)),
    ).not.toContain("v7");
    await waitFor(() => !new AnnFiles(workspace).foldRunning("chunks"), 30_000);
    const status = (await reopened.vectorIndexStatus()).find((s) => s.namespace === "chunks");
    expect(status).toMatchObject({ fresh: true, pending: 0, segments: 0 });
    expect(status?.folding).toBeUndefined();
  });

  it("keeps the segments saved while a fold ran, and gives way to a main file replaced meanwhile", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 32);
    const store = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    const files = new AnnFiles(workspace);
    // This test plays the background process: holding the fold lock, no other process is started.
    const release = files.tryFoldLock("chunks");
    expect(release).toBeDefined();
    closers.push(() => release?.());
    const base = files.manifest("chunks");

    // Written while "the fold runs": one more segment, past maxSegments, kept by the writer.
    await store.upsertVectors("chunks", items(points, 10, "during"));
    await store.deleteVectors("chunks", ["v9"]);
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(4);
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")).toMatchObject({
      folding: true,
      segments: 3,
    });

    const { db } = openDatabase(sqliteFile(workspace));
    closers.push(() => db.close());
    const ann = new AnnVectors(new Sql(db), files, configOf());
    const committed = ann.foldSaved("chunks", base);
    const during = files.manifest("chunks")?.segments.at(-1);
    expect(committed?.segments).toEqual([during]);
    expect(committed?.generation).toBe(base?.covered);
    expect(usearchFiles(workspace)).toEqual([committed?.file, during?.file].sort());
    const queries = items(points, 12, "q").map((item) => item.vector);
    await expectExactAnswers(store, exact, queries);
    expect(idsOfNearest(await store.searchVectors("chunks", queries[0] ?? [], 450))).not.toContain("v9");

    // A fold from a main file that was replaced since (a writer folded) changes nothing.
    const stale = files.manifest("chunks");
    const writer = await open(workspace, { foldInBackground: false, maxSegments: 0 });
    await writer.upsertVectors("chunks", items(points, 5, "late"));
    await writer.refreshIndexes();
    const afterWriter = files.manifest("chunks");
    expect(afterWriter?.file).not.toBe(stale?.file);
    if (stale) stale.segments.push(...(afterWriter?.segments ?? []));
    expect(ann.foldSaved("chunks", stale)).toBeUndefined();
    expect(files.manifest("chunks")).toEqual(afterWriter);
    expect(usearchFiles(workspace)).toEqual([afterWriter?.file]);
  });

  it("folds in the writer once segments pile up past maxSegmentsWhileFolding", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 33);
    const store = await open(workspace, { maxSegmentsWhileFolding: 3 });
    await withTwoSegments(workspace, points, store);
    const files = new AnnFiles(workspace);
    const release = files.tryFoldLock("chunks");
    closers.push(() => release?.());
    const [main] = indexFiles(workspace);
    await store.upsertVectors("chunks", items(points, 10, "c"));
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(4);
    await store.upsertVectors("chunks", items(points, 10, "d"));
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(1);
    expect(indexFiles(workspace)[0]).not.toBe(main);
  });

  it("takes over a fold lock whose process is gone, and never one a live process holds", () => {
    const workspace = tempWorkspace();
    const files = new AnnFiles(workspace);
    const first = files.tryFoldLock("chunks");
    expect(first).toBeDefined();
    expect(files.foldRunning("chunks")).toBe(true);
    expect(files.tryFoldLock("chunks")).toBeUndefined();
    first?.();
    expect(files.foldRunning("chunks")).toBe(false);
    // A pid that has ended: the lock a killed fold left behind.
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid;
    writeFileSync(files.foldLockPath("chunks"), String(ended));
    expect(files.foldRunning("chunks")).toBe(false);
    const taken = files.tryFoldLock("chunks");
    expect(taken).toBeDefined();
    taken?.();
    // An empty lock file is one being written, unless old: its writer died before filling it.
    writeFileSync(files.foldLockPath("chunks"), "");
    expect(files.tryFoldLock("chunks")).toBeUndefined();
    const longAgo = new Date(Date.now() - 120_000);
    utimesSync(files.foldLockPath("chunks"), longAgo, longAgo);
    const afterEmpty = files.tryFoldLock("chunks");
    expect(afterEmpty).toBeDefined();
    afterEmpty?.();
  });
});

function idsOfNearest(hits: { id: string }[]): string[] {
  return hits.map((hit) => hit.id);
}
