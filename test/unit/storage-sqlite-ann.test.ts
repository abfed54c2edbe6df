import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ClusteredVectors, recallAt } from "../../bench/support/clustered-vectors.js";
import { type VectorIndexConfig, VectorIndexSchema } from "../../src/config.js";
import { createKgrag } from "../../src/kgrag.js";
import { ANN_FOLDER, AnnFiles, newHnswIndex } from "../../src/storage/sqlite/ann-file.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import type { VectorItem } from "../../src/types.js";
import { clusteredItems, openAnnStore } from "../support/ann-fixtures.js";
import { REPO_ROOT } from "../support/cli-child.js";

const opened: SqliteGraphStore[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-ann-"));
  folders.push(dir);
  return dir;
}

async function open(workspace: string, settings: Partial<VectorIndexConfig> = {}): Promise<SqliteGraphStore> {
  const store = await openAnnStore(workspace, settings);
  opened.push(store);
  return store;
}

const items = clusteredItems;

const idsOf = (hits: { id: string }[]) => hits.map((hit) => hit.id);

/** The manifest's file name: it changes exactly when the index file is rewritten. */
function indexFileName(workspace: string): string | undefined {
  const manifest = join(workspace, ANN_FOLDER, "chunks.json");
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, "utf8")) as { file: string }).file;
}

/** The main file and segment files the manifest names, in its order. */
function indexFiles(workspace: string, ns = "chunks"): string[] {
  const manifest = join(workspace, ANN_FOLDER, `${ns}.json`);
  if (!existsSync(manifest)) return [];
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as {
    file: string;
    segments?: { file: string }[];
  };
  return [parsed.file, ...(parsed.segments ?? []).map((segment) => segment.file)];
}

describe("SQLite HNSW vector index", () => {
  // usearch's concurrent add strands about one node per 400-vector build on two threads
  // (unum-cloud/USearch#735); such a row is never found again, whatever the query.
  it("finds every row of small files by its own vector (their build starts on one thread)", async () => {
    for (const seed of [31, 32, 33, 34, 35, 36]) {
      const store = await open(tempWorkspace(), { buildThreads: 2 });
      const stored = items(new ClusteredVectors(16, 6, seed), 400);
      await store.upsertVectors("chunks", stored);
      await store.refreshIndexes();
      const lost: string[] = [];
      for (const item of stored) {
        if (!idsOf(await store.searchVectors("chunks", item.vector, 5)).includes(item.id)) lost.push(item.id);
      }
      expect(lost, `seed ${seed}`).toEqual([]);
    }
  });

  // usearch kept one search context after the adds on one thread, and the first add on two threads
  // failed ("Reserve capacity ahead of insertions!") unless it grew the index again.
  it.each([5000, 4100, 6143, 8500])(
    "builds a file of %i vectors, across the switch to several threads",
    async (count) => {
      const workspace = tempWorkspace();
      const points = new ClusteredVectors(16, 6, 37);
      const store = await open(workspace, { buildThreads: 2 });
      const stored = items(points, count);
      await store.upsertVectors("chunks", stored);
      await store.refreshIndexes();
      expect(new AnnFiles(workspace).manifest("chunks")?.count).toBe(count);
      expect(idsOf(await store.searchVectors("chunks", stored[count - 1]?.vector as number[], 1))).toEqual([
        `v${count - 1}`,
      ]);
    },
  );

  // Built on every core (0) and on one thread: concurrent insertion must not cost recall.
  it.each([0, 1])(
    "finds at least 95 percent of the exact top-20 on a clustered set, with exact scores (build threads %i)",
    async (buildThreads) => {
      const workspace = tempWorkspace();
      const points = new ClusteredVectors(32, 20, 1);
      const ann = await open(workspace, { buildThreads });
      await ann.upsertVectors("chunks", items(points, 3000));
      await ann.refreshIndexes();
      const exact = await open(workspace, { kind: "exact" });
      let recall = 0;
      const queries = 40;
      for (let q = 0; q < queries; q++) {
        const query = Array.from(points.next());
        const truth = await exact.searchVectors("chunks", query, 20);
        const found = await ann.searchVectors("chunks", query, 20);
        expect(found).toHaveLength(20);
        // Candidates are re-scored from the stored vectors: the same score as exact search.
        const truthScores = new Map(truth.map((hit) => [hit.id, hit.score]));
        for (const hit of found) {
          if (truthScores.has(hit.id)) expect(hit.score).toBeCloseTo(truthScores.get(hit.id) as number, 5);
        }
        recall += recallAt(idsOf(truth), idsOf(found)) / queries;
      }
      expect(recall).toBeGreaterThanOrEqual(0.95);
    },
  );

  it("persists with the workspace: a reopened store searches the saved file without rebuilding it", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 5, 2);
    const first = await open(workspace);
    const stored = items(points, 500);
    await first.upsertVectors("chunks", stored);
    await first.refreshIndexes();
    const file = indexFileName(workspace);
    expect(file).toBeDefined();
    const query = stored[42]?.vector as number[];
    const before = await first.searchVectors("chunks", query, 5);
    await first.close();

    const second = await open(workspace);
    expect(await second.vectorIndexStatus()).toContainEqual(
      expect.objectContaining({ namespace: "chunks", kind: "hnsw", vectors: 500, fresh: true, pending: 0 }),
    );
    expect(await second.searchVectors("chunks", query, 5)).toEqual(before);
    expect(before[0]?.id).toBe("v42");
    expect(indexFileName(workspace)).toBe(file);
  });

  it("hands a saved index's in-memory copy back: it then reads the saved file, read-only", () => {
    const files = new AnnFiles(tempWorkspace());
    const config = VectorIndexSchema.parse({});
    const index = newHnswIndex(8, config);
    const points = new ClusteredVectors(8, 3, 4);
    for (let key = 0; key < 50; key++) index.add(BigInt(key), points.next());
    const manifest = files.save("chunks", index, { generation: 1, dim: 8, keys: "rowid" }, config);
    files.release(index, manifest.file);
    expect(index.size()).toBe(50);
    expect(Number(index.search(points.next(), 5, 1).keys.length)).toBe(5);
    // A map of the file cannot grow: nothing of the copy it was built in is left.
    expect(() => index.add(50n, points.next())).toThrow();
  });

  it("rebuilds a lost or truncated index file from the stored vectors", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 5, 3);
    const store = await open(workspace);
    const stored = items(points, 400);
    await store.upsertVectors("chunks", stored);
    await store.refreshIndexes();
    const file = indexFileName(workspace) as string;
    await store.close();

    truncateSync(join(workspace, ANN_FOLDER, file), 100);
    const reader = await open(workspace);
    expect((await reader.vectorIndexStatus()).find((s) => s.namespace === "chunks")?.fresh).toBe(false);
    expect((await reader.searchVectors("chunks", stored[7]?.vector as number[], 1))[0]?.id).toBe("v7");
    expect(indexFileName(workspace)).not.toBe(file);

    rmSync(join(workspace, ANN_FOLDER), { recursive: true });
    expect((await reader.searchVectors("chunks", stored[9]?.vector as number[], 1))[0]?.id).toBe("v9");
    expect(indexFileName(workspace)).toBeDefined();
  });

  it("never returns a deleted vector, and ranks an updated one by its new value, before and after refresh", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 5, 4);
    const store = await open(workspace);
    const stored = items(points, 600);
    await store.upsertVectors("chunks", stored);
    await store.refreshIndexes();
    const target = stored[10]?.vector as number[];

    await store.deleteVectors("chunks", ["v10"]);
    const moved = { id: "v20", textHash: "h2", vector: target };
    await store.upsertVectors("chunks", [moved]);
    const stale = await store.searchVectors("chunks", target, 10);
    expect(idsOf(stale)).not.toContain("v10");
    expect(stale[0]).toEqual({ id: "v20", score: expect.closeTo(1, 5) });
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")).toMatchObject({
      fresh: false,
      pending: 2,
    });

    await store.refreshIndexes();
    const fresh = await store.searchVectors("chunks", target, 10);
    expect(fresh).toEqual(stale);
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")?.fresh).toBe(true);
  });

  it("re-scores past the index's best hits deleted since it was saved, and sees other connections' writes", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 5, 6);
    const stored = items(points, 600);
    const writer = await open(workspace);
    await writer.upsertVectors("chunks", stored);
    await writer.refreshIndexes();
    // Re-scoring reads only k rows at first: the deleted ones must be made up from further hits.
    const reader = await open(workspace, { rescore: 1 });
    const exact = await open(workspace, { kind: "exact" });
    const query = Array.from(points.next());
    const best = idsOf(await reader.searchVectors("chunks", query, 10));
    await writer.deleteVectors("chunks", best.slice(0, 5));
    const afterDelete = await reader.searchVectors("chunks", query, 10);
    expect(afterDelete).toHaveLength(10);
    expect(idsOf(afterDelete)).toEqual(idsOf(await exact.searchVectors("chunks", query, 10)));

    // A reader that searched before must see a later write, and a file another connection saved.
    await writer.upsertVectors("chunks", [{ id: "late", textHash: "h", vector: query }]);
    expect((await reader.searchVectors("chunks", query, 1))[0]).toEqual({
      id: "late",
      score: expect.closeTo(1, 5),
    });
    const files = indexFiles(workspace);
    await writer.refreshIndexes();
    // One row beside 600: saved as a segment, the main file kept.
    expect(indexFiles(workspace)).toEqual([files[0], expect.any(String)]);
    expect(idsOf(await reader.searchVectors("chunks", query, 10))).toEqual(
      idsOf(await exact.searchVectors("chunks", query, 10)),
    );
  });

  it("returns k results from the scope only, with a pre-filter or with a filtered search", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 10, 5);
    const stored = items(points, 2000);
    const writer = await open(workspace);
    await writer.upsertVectors("chunks", stored);
    await writer.refreshIndexes();
    const exact = await open(workspace, { kind: "exact" });
    const scope = new Set(stored.filter((_, i) => i % 10 === 3).map((item) => item.id));
    const query = Array.from(points.next());
    const truth = idsOf(await exact.searchVectors("chunks", query, 10, scope));
    for (const exactScopeMax of [20_000, 0]) {
      const store = await open(workspace, { exactScopeMax });
      const hits = idsOf(await store.searchVectors("chunks", query, 10, scope));
      expect(hits).toHaveLength(10);
      for (const id of hits) expect(scope.has(id)).toBe(true);
      expect(recallAt(truth, hits)).toBeGreaterThanOrEqual(0.9);
    }
  });

  it("switches a namespace to HNSW in auto mode once it holds minVectors, and back below it", async () => {
    const workspace = tempWorkspace();
    const store = await openSqliteStore(workspace, {
      vectorIndex: VectorIndexSchema.parse({ kind: "auto", minVectors: 10 }),
    });
    opened.push(store);
    const kind = async () => (await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")?.kind;
    const stored = items(new ClusteredVectors(8, 2, 7), 10);
    await store.upsertVectors("chunks", stored.slice(0, 9));
    expect(await kind()).toBe("exact");
    await store.upsertVectors("chunks", stored.slice(9));
    expect(await kind()).toBe("hnsw");
    await store.deleteVectors("chunks", ["v0"]);
    expect(await kind()).toBe("exact");
  });

  it("keeps the hashing embedder's sparse vectors on exact search in auto mode", async () => {
    const workspace = tempWorkspace();
    const store = await openSqliteStore(workspace, {
      vectorIndex: VectorIndexSchema.parse({ kind: "auto", minVectors: 10 }),
    });
    opened.push(store);
    await store.upsertVectors("chunks", items(new ClusteredVectors(8, 2, 6), 50));
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")?.kind).toBe("hnsw");
    await store.setMeta("embedding.kind", "hashing");
    expect((await store.vectorIndexStatus()).find((s) => s.namespace === "chunks")?.kind).toBe("exact");
  });

  it("recovers after the writer is killed with SIGKILL mid-write: results match exact search", async () => {
    const workspace = tempWorkspace();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/support/ann-writer-child.ts", workspace],
      {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (text: Buffer) => {
      stderr += text.toString();
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (text: Buffer) => {
        // Killed while writing its fourth batch or refreshing after it.
        if (text.toString().includes("batch 3")) setTimeout(resolve, 15);
      });
      child.on("exit", () => reject(new Error(`writer exited early: ${stderr}`)));
    });
    child.kill("SIGKILL");
    await exited;

    const reader = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    const total = (await reader.vectorHashes("chunks")).size;
    expect(total).toBeGreaterThanOrEqual(800);
    expect(total % 200).toBe(0);
    const points = new ClusteredVectors(16, 8, 7, 99);
    // Recall over the query set: where the kill lands changes which vectors the HNSW file holds,
    // and a single approximate query may miss one of its ten.
    const recalls: number[] = [];
    for (let q = 0; q < 20; q++) {
      const query = Array.from(points.next());
      const truth = idsOf(await exact.searchVectors("chunks", query, 10));
      recalls.push(recallAt(truth, idsOf(await reader.searchVectors("chunks", query, 10))));
    }
    expect(recalls.reduce((a, b) => a + b, 0) / recalls.length).toBeGreaterThanOrEqual(0.95);
    expect(Math.min(...recalls)).toBeGreaterThanOrEqual(0.7);
    const stored = await reader.getVectors("chunks", ["v0-5", `v${total / 200 - 1}-5`]);
    for (const item of stored)
      expect((await reader.searchVectors("chunks", item.vector, 1))[0]?.id).toBe(item.id);
    const files = readdirSync(join(workspace, ANN_FOLDER)).filter((name) => name.endsWith(".usearch"));
    expect(files.length).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe("readers never wait for a writer", () => {
  it("opens, searches text and vectors and counts while another connection holds the write lock", async () => {
    const workspace = tempWorkspace();
    const writer = await open(workspace, { kind: "exact" });
    await writer.upsertDocument({
      id: "d1",
      title: "Doc",
      path: null,
      contentHash: "c",
      status: "pending",
      error: null,
      metadata: {},
      chunkCount: 0,
      createdAt: "2024-01-01T00:00:00.000Z",
      updatedAt: "2024-01-01T00:00:00.000Z",
    });
    await writer.replaceDocumentChunks("d1", [
      { id: "c1", docId: "d1", index: 0, text: "harbour cranes at dawn", tokens: 4, start: 0, end: 22 },
    ]);
    await writer.upsertVectors("chunks", [{ id: "c1", textHash: "h", vector: [1, 0, 0] }]);
    // The writer's full-text rows are still queued: a reader that flushed them would need the lock.
    const holder = new Database(sqliteFile(workspace), { timeout: 0 });
    holder.exec("BEGIN IMMEDIATE");
    holder.exec("INSERT INTO meta (key, value) VALUES ('held', '1')");
    try {
      const reader = await openSqliteStore(workspace, {
        vectorIndex: VectorIndexSchema.parse({ kind: "exact" }),
      });
      opened.push(reader);
      expect((await reader.counts()).chunks).toBe(1);
      expect(await reader.searchChunkText("cranes", 5)).toEqual([]);
      expect(idsOf(await reader.searchVectors("chunks", [1, 0, 0], 1))).toEqual(["c1"]);
      expect(await reader.vectorIndexStatus()).toHaveLength(4);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    await writer.refreshIndexes();
    const reader = await open(workspace, { kind: "exact" });
    expect(idsOf(await reader.searchChunkText("cranes", 5))).toEqual(["c1"]);
  });
});

describe("a kgrag reader beside a writer holding the lock", () => {
  it("opens the workspace, answers a query and reports status without a busy error", async () => {
    const workspace = tempWorkspace();
    const writer = await createKgrag({ env: {}, config: { workspace } });
    await writer.index([
      {
        id: "d1",
        title: "Harbour",
        text: "Ada Lovelace met Charles Babbage in London to discuss the engine.",
      },
    ]);
    await writer.close();
    const holder = new Database(sqliteFile(workspace), { timeout: 0 });
    holder.exec("BEGIN IMMEDIATE");
    holder.exec("INSERT INTO meta (key, value) VALUES ('held', '1')");
    try {
      const reader = await createKgrag({ env: {}, config: { workspace } });
      try {
        const result = await reader.query("Who met Charles Babbage?", { mode: "mix", contextOnly: true });
        expect(result.context.chunks.map((chunk) => chunk.text).join(" ")).toContain("Babbage");
        expect((await reader.status()).counts.documents).toBe(1);
      } finally {
        await reader.close();
      }
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  }, 60_000);
});

describe("HNSW segments: rows added beside a large main file", () => {
  // Candidates beyond the index's own top-k are re-scored exactly, so answers match exact search
  // whatever f16 distances do at the 10th place: these tests are about which copies count.
  const precise = { rescore: 3, oversample: 3 };
  const statusOf = async (store: SqliteGraphStore) =>
    (await store.vectorIndexStatus()).find((s) => s.namespace === "chunks");

  /** Top-10 ids of the approximate and the exact store for queries drawn from the set, and the stored vectors themselves. */
  async function expectExactAnswers(ann: SqliteGraphStore, exact: SqliteGraphStore, queries: number[][]) {
    for (const query of queries) {
      expect(idsOf(await ann.searchVectors("chunks", query, 10))).toEqual(
        idsOf(await exact.searchVectors("chunks", query, 10)),
      );
    }
  }

  it("saves new, updated and deleted rows as segments, never returns an outdated copy, and folds past maxSegments", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 21);
    const store = await open(workspace, { ...precise, segmentShare: 0.5, maxSegments: 2 });
    const exact = await open(workspace, { kind: "exact" });
    const stored = items(points, 400);
    await store.upsertVectors("chunks", stored);
    await store.refreshIndexes();
    const [main] = indexFiles(workspace);

    // v5 moves next to v300; v6 is deleted; 20 rows are new.
    const nearV300 = (stored[300] as VectorItem).vector.map((x, i) => (i === 0 ? x + 0.01 : x));
    const moved = { id: "v5", textHash: "h2", vector: nearV300 };
    await store.upsertVectors("chunks", [moved, ...items(points, 20, "new")]);
    await store.deleteVectors("chunks", ["v6"]);
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toEqual([main, expect.any(String)]);
    expect(await statusOf(store)).toMatchObject({ fresh: true, pending: 0, segments: 1 });
    const queries = [stored[5]?.vector, stored[6]?.vector, stored[300]?.vector].map((v) => v as number[]);
    await expectExactAnswers(store, exact, [...queries, ...items(points, 10).map((item) => item.vector)]);
    // The main file's copy of v5 sits where v5 was: it must not bring v5 back there.
    const atOldPlace = await store.searchVectors("chunks", stored[5]?.vector as number[], 3);
    expect(atOldPlace[0]?.id).not.toBe("v5");
    expect(idsOf(await store.searchVectors("chunks", stored[6]?.vector as number[], 20))).not.toContain("v6");
    expect(
      (await store.searchVectors("chunks", stored[300]?.vector as number[], 2)).map((hit) => hit.id).sort(),
    ).toEqual(["v300", "v5"]);

    // A reopened store reads the same files.
    const reopened = await open(workspace, { ...precise, segmentShare: 0.5, maxSegments: 2 });
    expect(await statusOf(reopened)).toMatchObject({ fresh: true, pending: 0 });
    await expectExactAnswers(reopened, exact, queries);

    await store.upsertVectors("chunks", items(points, 10, "second"));
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(3);
    await expectExactAnswers(reopened, exact, queries);
    // Two segments are the most: the next refresh folds everything into a new main file.
    await store.upsertVectors("chunks", items(points, 10, "third"));
    await store.refreshIndexes();
    const folded = indexFiles(workspace);
    expect(folded).toHaveLength(1);
    expect(folded[0]).not.toBe(main);
    expect(readdirSync(join(workspace, ANN_FOLDER)).filter((name) => name.endsWith(".usearch"))).toEqual(
      folded,
    );
    await expectExactAnswers(store, exact, [...queries, ...items(points, 10).map((item) => item.vector)]);
    await expectExactAnswers(reopened, exact, queries);
  });

  it("removes index files and manifest drafts no manifest names once they are old, when it saves a main file", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 23);
    const store = await open(workspace, { segmentShare: 0 });
    await store.upsertVectors("chunks", items(points, 300));
    await store.refreshIndexes();
    // What a kill -9 between writing a file and renaming the manifest leaves, long ago and just now.
    const folder = join(workspace, ANN_FOLDER);
    const leftovers = [
      "chunks-7-0badf00d.usearch",
      "chunks-7-0badf00e.mixed.usearch",
      "chunks.json.0badf00d.tmp",
      // A lock's own files, left by a kill between its steps.
      "chunks.fold.lock.0badf00d.new",
      "chunks.json.lock.0badf00d.stale",
      "entities-7-0badf00d.usearch",
    ];
    for (const name of leftovers) writeFileSync(join(folder, name), "partial");
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const name of leftovers) utimesSync(join(folder, name), hoursAgo, hoursAgo);
    writeFileSync(join(folder, "chunks-8-0dd0dd00.usearch"), "being written");
    await store.upsertVectors("chunks", items(points, 10, "more"));
    await store.refreshIndexes();
    const left = readdirSync(folder);
    for (const gone of leftovers.filter((name) => name.startsWith("chunks")))
      expect(left).not.toContain(gone);
    // Another namespace's files wait for its own save; a recent file may be another process's.
    expect(left).toContain("entities-7-0badf00d.usearch");
    expect(left).toContain("chunks-8-0dd0dd00.usearch");
    expect(left).toContain(indexFileName(workspace));
    expect(await store.searchVectors("chunks", items(points, 1, "q")[0]?.vector as number[], 5)).toHaveLength(
      5,
    );
  });

  it("folds at once when the new rows outgrow segmentShare of the main file", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 22);
    const store = await open(workspace, { segmentShare: 0.05 });
    await store.upsertVectors("chunks", items(points, 400));
    await store.refreshIndexes();
    const [main] = indexFiles(workspace);
    await store.upsertVectors("chunks", items(points, 10, "few"));
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toEqual([main, expect.any(String)]);
    // 10 + 30 rows beside 400 pass a share of 0.05.
    await store.upsertVectors("chunks", items(points, 30, "many"));
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(1);
    expect(indexFiles(workspace)[0]).not.toBe(main);
  });

  it("never writes a segment over a manifest another process changed meanwhile", () => {
    const workspace = tempWorkspace();
    const files = new AnnFiles(workspace);
    const config = VectorIndexSchema.parse({});
    const points = new ClusteredVectors(8, 3, 25);
    const indexOf = (count: number) => {
      const index = newHnswIndex(8, config);
      for (let key = 0; key < count; key++) index.add(BigInt(key), points.next());
      return index;
    };
    const base = files.save("chunks", indexOf(50), { generation: 1, dim: 8, keys: "rowid" }, config);
    // Another process folds while this one builds a segment from `base`.
    const folded = files.save("chunks", indexOf(60), { generation: 3, dim: 8, keys: "rowid" }, config);
    const saved = files.saveSegment("chunks", indexOf(5), base, 2);
    expect(saved).toEqual(folded);
    expect(files.manifest("chunks")).toEqual(folded);
    expect(readdirSync(join(workspace, ANN_FOLDER)).filter((name) => name.endsWith(".usearch"))).toEqual([
      folded.file,
    ]);
    expect(files.cover("chunks", base, 4)).toEqual(folded);
  });

  it("accounts for deletions alone without writing a file, and stays fresh", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 23);
    const store = await open(workspace);
    const stored = items(points, 300);
    await store.upsertVectors("chunks", stored);
    await store.refreshIndexes();
    const files = indexFiles(workspace);
    await store.deleteVectors("chunks", ["v1", "v2"]);
    expect(await statusOf(store)).toMatchObject({ fresh: false, pending: 2 });
    await store.refreshIndexes();
    expect(indexFiles(workspace)).toEqual(files);
    expect(await statusOf(store)).toMatchObject({ fresh: true, pending: 0 });
    expect(idsOf(await store.searchVectors("chunks", stored[1]?.vector as number[], 10))).not.toContain("v1");
  });

  it("answers exactly in a reader that mapped the main file before another connection saved a segment", async () => {
    const workspace = tempWorkspace();
    const points = new ClusteredVectors(16, 6, 24);
    const writer = await open(workspace);
    const reader = await open(workspace, precise);
    const exact = await open(workspace, { kind: "exact" });
    await writer.upsertVectors("chunks", items(points, 300));
    await writer.refreshIndexes();
    const query = Array.from(points.next());
    await reader.searchVectors("chunks", query, 5);
    const late = { id: "late", textHash: "h", vector: query };
    await writer.upsertVectors("chunks", [late, ...items(points, 5, "more")]);
    await writer.refreshIndexes();
    expect(indexFiles(workspace)).toHaveLength(2);
    expect((await reader.searchVectors("chunks", query, 1))[0]).toEqual({
      id: "late",
      score: expect.closeTo(1, 5),
    });
    await expectExactAnswers(reader, exact, [query, ...items(points, 5).map((item) => item.vector)]);
  });
});
