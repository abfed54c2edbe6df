import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ClusteredVectors } from "../../bench/support/clustered-vectors.js";
import { type VectorIndexConfig, VectorIndexSchema } from "../../src/config.js";
import { ANN_FOLDER, AnnFiles, hnswSettings } from "../../src/storage/sqlite/ann-file.js";
import { AnnVectors } from "../../src/storage/sqlite/ann-vectors.js";
import { Sql } from "../../src/storage/sqlite/connection.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { clusteredItems } from "../support/ann-fixtures.js";

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

const items = clusteredItems;

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

/**
 * The test plays the background process: it takes the fold lock (so no other process is started)
 * and reads the manifest the fold starts from; then, while "the fold runs", the writer saves one
 * more segment ("during" rows) and deletes v9, after the fold's generation.
 */
async function writtenDuringFold(workspace: string, points: ClusteredVectors, store: SqliteGraphStore) {
  const files = new AnnFiles(workspace);
  const lock = files.tryFoldLock("chunks");
  closers.push(() => lock?.release());
  const base = files.manifest("chunks");
  await store.upsertVectors("chunks", items(points, 10, "during"));
  await store.deleteVectors("chunks", ["v9"]);
  await store.refreshIndexes();
  return { files, lock, base };
}

async function waitFor(check: () => boolean, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe("HNSW folds in the background", () => {
  it("leaves a due fold to a process of its own: the writer saves a segment, the process folds, answers stay exact", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 31);
    const store = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    const before = indexFiles(workspace);
    const queries = items(points, 12, "q").map((item) => item.vector);

    await store.upsertVectors("chunks", items(points, 10, "c"));
    await store.refreshIndexes();
    // The writer did not fold: the same main file with a third segment (a process starts in far
    // more than the time to get here).
    const withThird = indexFiles(workspace);
    expect(withThird).toEqual([...before, expect.any(String)]);
    expect(store.backgroundFolds()).toEqual([{ pid: expect.any(Number), namespaces: ["chunks"] }]);
    await expectExactAnswers(store, exact, queries);

    await waitFor(() => indexFiles(workspace).length === 1, 60_000);
    const folded = new AnnFiles(workspace).manifest("chunks");
    expect(before).not.toContain(folded?.file);
    // Every row but the deleted v7: 400 + 20 + 10 + 10 - 1.
    expect(folded?.count).toBe(439);
    // The replaced files stay a while for processes that read the old manifest; orphans later.
    expect(usearchFiles(workspace)).toEqual([...withThird, folded?.file].sort());
    await expectExactAnswers(store, exact, queries);
    const reopened = await open(workspace);
    await expectExactAnswers(reopened, exact, queries);
    await waitFor(() => !new AnnFiles(workspace).foldRunning("chunks"), 30_000);
    const status = (await reopened.vectorIndexStatus()).find((s) => s.namespace === "chunks");
    expect(status).toMatchObject({ fresh: true, pending: 0, segments: 0 });
    expect(status?.folding).toBeUndefined();
    expect(status?.foldError).toBeUndefined();
  });

  it("keeps the segments and deletions saved while a fold ran", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 32);
    const store = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    const { files, lock, base } = await writtenDuringFold(workspace, points, store);
    expect(lock).toBeDefined();
    expect(indexFiles(workspace)).toHaveLength(4);
    expect(store.backgroundFolds()).toEqual([]);
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")).toMatchObject({
      folding: true,
      segments: 3,
    });

    const ann = readOnlyAnn(workspace, files);
    const committed = ann.foldSaved("chunks", base);
    const during = files.manifest("chunks")?.segments.at(-1);
    expect(committed?.segments).toEqual([during]);
    expect(committed?.generation).toBe(base?.covered);
    // v7 went before the fold's generation, v9 after it: only v7 is gone from the main file.
    expect(committed?.count).toBe(429);
    const queries = items(points, 12, "q").map((item) => item.vector);
    await expectExactAnswers(store, exact, [...queries, ...items(points, 4, "v").map((item) => item.vector)]);
  });

  it("commits nothing over a main file replaced since the fold began", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 34);
    const store = await open(workspace);
    await withTwoSegments(workspace, points, store);
    const files = new AnnFiles(workspace);
    const base = files.manifest("chunks");
    if (!base) throw new Error("no manifest");
    // A writer folds meanwhile (its own settings: every refresh folds).
    const writer = await open(workspace, { foldInBackground: false, maxSegments: 0 });
    await writer.upsertVectors("chunks", items(points, 5, "late"));
    await writer.refreshIndexes();
    const afterWriter = files.manifest("chunks");
    expect(afterWriter?.file).not.toBe(base.file);
    const folded = {
      file: "chunks-0-00000000.usearch",
      bytes: 1,
      count: 1,
      connectivity: 16,
    };
    expect(files.commitFold("chunks", base, folded, 60)).toBeUndefined();
    expect(files.manifest("chunks")).toEqual(afterWriter);
    // A fold asked for from the old manifest loads nothing and changes nothing.
    expect(readOnlyAnn(workspace, files).foldSaved("chunks", base)).toBeUndefined();
    expect(files.manifest("chunks")).toEqual(afterWriter);
  });

  it("survives a fold process killed with SIGKILL: answers stay exact and the next fold takes over", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(64, 6, 35);
    // Enough rows that the fold is most likely still running when it is killed. Six tight clusters
    // are a hard case for a 16-degree graph whose build order varies (recall 0.82-0.95 at the default
    // search expansion): searched wider, a whole graph finds nearly all of exact, a torn one does not.
    const store = await open(workspace, { segmentShare: 0.9, expansionSearch: 512 });
    const exact = await open(workspace, { kind: "exact" });
    await store.upsertVectors("chunks", items(points, 20_000, "v"));
    await store.refreshIndexes();
    for (const batch of ["a", "b", "c"]) {
      await store.upsertVectors("chunks", items(points, 5000, batch));
      await store.refreshIndexes();
    }
    const [started] = store.backgroundFolds();
    if (!started) throw new Error("no background fold was started");
    const files = new AnnFiles(workspace);
    const before = indexFiles(workspace);
    const queries = items(points, 10, "q").map((item) => item.vector);
    const answersBefore = await answers(store, queries);
    await waitFor(() => files.foldRunning("chunks") || indexFiles(workspace).length === 1, 30_000, 5);
    process.kill(started.pid, "SIGKILL");
    // Killed before it switched the manifest (the usual case): the same files, the same answers;
    // or just after: the folded file. Either way whole, and a 35,000-row graph finds most of exact.
    const after = indexFiles(workspace);
    if (after.join() === before.join()) expect(await answers(store, queries)).toEqual(answersBefore);
    else expect(after).toHaveLength(1);
    expect(await recall(store, exact, queries)).toBeGreaterThanOrEqual(0.9);
    await waitFor(() => !files.foldRunning("chunks"), 10_000);

    await store.upsertVectors("chunks", items(points, 10, "d"));
    await store.refreshIndexes();
    await waitFor(() => indexFiles(workspace).length === 1, 60_000);
    expect(files.manifest("chunks")?.count).toBe(35_010);
    expect(await recall(store, exact, queries)).toBeGreaterThanOrEqual(0.9);
  });

  it("folds in the writer once segments pile up past maxSegmentsWhileFolding", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 33);
    const store = await open(workspace, { maxSegmentsWhileFolding: 3 });
    await withTwoSegments(workspace, points, store);
    const files = new AnnFiles(workspace);
    const lock = files.tryFoldLock("chunks");
    closers.push(() => lock?.release());
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
    mkdirSync(join(workspace, ANN_FOLDER));
    const files = new AnnFiles(workspace);
    const first = files.tryFoldLock("chunks");
    expect(first).toBeDefined();
    expect(files.foldRunning("chunks")).toBe(true);
    // Created with its owner in it (linked into place), no file of its making left beside it.
    expect(readFileSync(files.foldLockPath("chunks"), "utf8")).toMatch(
      new RegExp(`^${process.pid} [0-9a-f]{16}$`),
    );
    expect(readdirSync(join(workspace, ANN_FOLDER))).toEqual([basename(files.foldLockPath("chunks"))]);
    expect(files.tryFoldLock("chunks")).toBeUndefined();
    first?.release();
    expect(files.foldRunning("chunks")).toBe(false);
    // A pid that has ended: the lock a killed fold left behind.
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid;
    writeFileSync(files.foldLockPath("chunks"), `${ended} 0123456789abcdef`);
    expect(files.foldRunning("chunks")).toBe(false);
    const taken = files.tryFoldLock("chunks");
    expect(taken).toBeDefined();
    // A release removes only its own lock: one another process holds now stays.
    writeFileSync(files.foldLockPath("chunks"), `${process.pid} another`);
    taken?.release();
    expect(files.foldRunning("chunks")).toBe(true);
    // A live pid that stopped touching its lock for long (the pid was reused): stale.
    const longAgo = new Date(Date.now() - 11 * 60_000);
    utimesSync(files.foldLockPath("chunks"), longAgo, longAgo);
    expect(files.foldRunning("chunks")).toBe(false);
    // An empty lock file is one being written, unless old: its writer died before filling it.
    writeFileSync(files.foldLockPath("chunks"), "");
    expect(files.tryFoldLock("chunks")).toBeUndefined();
    const minutesAgo = new Date(Date.now() - 120_000);
    utimesSync(files.foldLockPath("chunks"), minutesAgo, minutesAgo);
    const afterEmpty = files.tryFoldLock("chunks");
    expect(afterEmpty).toBeDefined();
    afterEmpty?.release();
    expect(readdirSync(join(workspace, ANN_FOLDER))).toEqual([]);
  });

  it("does not bring back a workspace removed before its fold ran", () => {
    const workspace = tempWorkspace();
    const files = new AnnFiles(workspace);
    expect(files.tryFoldLock("chunks")).toBeUndefined();
    expect(existsSync(join(workspace, ANN_FOLDER))).toBe(false);
  });
});

async function answers(store: SqliteGraphStore, queries: number[][]): Promise<string[][]> {
  const found: string[][] = [];
  for (const query of queries)
    found.push((await store.searchVectors("chunks", query, 10)).map((hit) => hit.id));
  return found;
}

/** Share of the exact top-10 ids that the store's top-10 holds, over the queries. */
async function recall(
  store: SqliteGraphStore,
  exact: SqliteGraphStore,
  queries: number[][],
): Promise<number> {
  const truth = await answers(exact, queries);
  const found = await answers(store, queries);
  const hits = truth.reduce((sum, ids, i) => sum + ids.filter((id) => found[i]?.includes(id)).length, 0);
  return hits / truth.reduce((sum, ids) => sum + ids.length, 0);
}

/** The fold's view of the workspace: a read-only SQLite connection, as fold-process.ts opens it. */
function readOnlyAnn(
  workspace: string,
  files: AnnFiles,
  settings: Partial<VectorIndexConfig> = {},
): AnnVectors {
  const db = new Database(sqliteFile(workspace), { readonly: true, fileMustExist: true });
  closers.push(() => db.close());
  return new AnnVectors(new Sql(db), files, configOf(settings));
}

/** The graph degree the chunks main file was really built with (read from the file, not the manifest). */
function mainFileDegree(workspace: string): number | undefined {
  const files = new AnnFiles(workspace);
  const manifest = files.manifest("chunks");
  return manifest && files.view(manifest, configOf())?.main.connectivity();
}

/** A main file of 400 rows stays sparse; from 420 rows up main files are built with degree 24. */
const GROWING = { connectivity: 8, largeConnectivity: 24, largeExpansionAdd: 64, largeFileVectors: 420 };

describe("denser graphs for large main files", () => {
  it("picks a file's graph settings by its size: cheap inserts for small files, a denser graph for large ones", () => {
    const defaults = VectorIndexSchema.parse({});
    expect(hnswSettings(10_000, defaults)).toEqual({ connectivity: 16, expansionAdd: 32 });
    expect(hnswSettings(25_000, defaults)).toEqual({ connectivity: 16, expansionAdd: 64 });
    expect(hnswSettings(249_999, defaults)).toEqual({ connectivity: 16, expansionAdd: 64 });
    expect(hnswSettings(250_000, defaults)).toEqual({ connectivity: 32, expansionAdd: 128 });
    const flat = VectorIndexSchema.parse({ smallFileVectors: 0, largeFileVectors: 0 });
    expect(hnswSettings(10, flat)).toEqual({ connectivity: 16, expansionAdd: 64 });
    expect(hnswSettings(5_000_000, flat)).toEqual({ connectivity: 16, expansionAdd: 64 });
  });

  it("a background fold past largeFileVectors rebuilds the main file with the larger degree", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 41);
    const store = await open(workspace, GROWING);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    expect(mainFileDegree(workspace)).toBe(8);
    const { files, base } = await writtenDuringFold(workspace, points, store);
    const committed = readOnlyAnn(workspace, files, GROWING).foldSaved("chunks", base);

    expect(committed?.connectivity).toBe(24);
    expect(mainFileDegree(workspace)).toBe(24);
    expect(committed?.generation).toBe(base?.covered);
    expect(committed?.segments).toEqual([files.manifest("chunks")?.segments.at(-1)]);
    // Rebuilt from the stored rows up to the fold's generation: v7 and v9 are gone, "during" is in the segment.
    expect(committed?.count).toBe(428);
    const queries = items(points, 12, "q").map((item) => item.vector);
    await expectExactAnswers(store, exact, [...queries, ...items(points, 4, "v").map((item) => item.vector)]);
  });

  it("a writer's fold past largeFileVectors builds anew; either configured degree is reused, another is rebuilt", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 42);
    const writer = { ...GROWING, foldInBackground: false };
    const store = await open(workspace, writer);
    const exact = await open(workspace, { kind: "exact" });
    await withTwoSegments(workspace, points, store);
    await store.upsertVectors("chunks", items(points, 10, "c"));
    await store.refreshIndexes();

    expect(indexFiles(workspace)).toHaveLength(1);
    expect(mainFileDegree(workspace)).toBe(24);
    expect(new AnnFiles(workspace).manifest("chunks")).toMatchObject({ connectivity: 24, count: 439 });
    const queries = items(points, 12, "q").map((item) => item.vector);
    await expectExactAnswers(store, exact, queries);

    // Another process with the same settings maps the file as it is.
    const built = indexFiles(workspace);
    await expectExactAnswers(await open(workspace, writer), exact, queries);
    expect(indexFiles(workspace)).toEqual(built);
    // Settings that give no file degree 24 rebuild it, at the degree its size calls for.
    await expectExactAnswers(await open(workspace, { ...writer, largeConnectivity: 12 }), exact, queries);
    expect(indexFiles(workspace)).not.toEqual(built);
    expect(mainFileDegree(workspace)).toBe(12);
  });
});
