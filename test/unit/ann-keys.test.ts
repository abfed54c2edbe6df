import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ClusteredVectors } from "../../bench/support/clustered-vectors.js";
import { type VectorIndexConfig, VectorIndexSchema } from "../../src/config.js";
import { ANN_FOLDER, AnnFiles, newHnswIndex } from "../../src/storage/sqlite/ann-file.js";
import { fileKey, keysOfFile, rowidOfKey } from "../../src/storage/sqlite/ann-keys.js";
import { AnnVectors } from "../../src/storage/sqlite/ann-vectors.js";
import { Sql } from "../../src/storage/sqlite/connection.js";
import { type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { clusteredItems, openAnnStore } from "../support/ann-fixtures.js";

const opened: SqliteGraphStore[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function open(workspace: string, settings: Partial<VectorIndexConfig> = {}): Promise<SqliteGraphStore> {
  const store = await openAnnStore(workspace, settings);
  opened.push(store);
  return store;
}

const items = clusteredItems;

const idsOf = (hits: { id: string }[]) => hits.map((hit) => hit.id);

interface RawManifest {
  file: string;
  segments: { file: string }[];
}

function rawManifest(workspace: string): RawManifest {
  return JSON.parse(readFileSync(join(workspace, ANN_FOLDER, "chunks.json"), "utf8")) as RawManifest;
}

/** The key encoding of the main file and of each segment, by their names. */
function encodings(workspace: string): { main: string; segments: string[] } {
  const manifest = rawManifest(workspace);
  return { main: keysOfFile(manifest.file), segments: manifest.segments.map((s) => keysOfFile(s.file)) };
}

/** Replaces the chunks' main file with one keyed by rowid: a workspace as saved before keys were mixed. */
function saveAsBeforeMixing(workspace: string, config: VectorIndexConfig): void {
  const db = new Database(sqliteFile(workspace), { readonly: true });
  const rows = db
    .prepare("SELECT rowid AS key, vector FROM vectors WHERE namespace = 'chunks' ORDER BY rowid")
    .all() as { key: number; vector: Buffer }[];
  const generation = db
    .prepare("SELECT generation FROM vector_generations WHERE namespace = 'chunks'")
    .pluck()
    .get() as number;
  db.close();
  const dim = rows[0] ? rows[0].vector.byteLength / 4 : 0;
  const index = newHnswIndex(dim, config, rows.length);
  for (const row of rows) {
    const vector = new Float32Array(dim);
    new Uint8Array(vector.buffer).set(row.vector);
    index.add(BigInt(row.key), vector);
  }
  new AnnFiles(workspace).save("chunks", index, { generation, dim, keys: "rowid" }, config);
  expect(rawManifest(workspace).file).toMatch(/^chunks-\d+-[0-9a-f]{8}\.usearch$/);
}

describe("HNSW file keys", () => {
  it("mixes a rowid's low 32 bits one to one and reads it back, up to 2^53 - 1", () => {
    const rowids = [0, 1, 2, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 2 ** 53 - 1];
    for (let i = 0; i < 4_000; i++) rowids.push(i, Math.floor(Math.random() * 2 ** 53));
    for (const rowid of rowids) {
      const key = fileKey(rowid, "mixed");
      expect(key >= 0n && key <= BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
      expect(rowidOfKey(key, "mixed")).toBe(rowid);
      expect(rowidOfKey(fileKey(rowid, "rowid"), "rowid")).toBe(rowid);
    }
    const high = 5 * 2 ** 32;
    expect(fileKey(high + 3, "mixed") - fileKey(3, "mixed")).toBe(BigInt(high));
    expect(fileKey(12345, "rowid")).toBe(12345n);
  });

  it("spreads runs of rowids a power of two apart over a table's low bits, where rowids collide", () => {
    // usearch's key table takes a key's low bits as its slot: two runs 2^21 apart fill the same
    // 65,536 slots of a 2^21-slot table when keys are rowids.
    const slots = (encoding: "rowid" | "mixed") => {
      const taken = new Set<bigint>();
      for (let i = 0; i < 65_536; i++) {
        taken.add(fileKey(i, encoding) % 2n ** 21n);
        taken.add(fileKey(2 ** 21 + i, encoding) % 2n ** 21n);
      }
      return taken.size;
    };
    expect(slots("rowid")).toBe(65_536);
    // Random slots for 131,072 keys in 2^21: about 4,000 shared.
    expect(slots("mixed")).toBeGreaterThan(0.95 * 131_072);
  });

  it("saves new files with mixed keys: the file's keys are the rowids mixed", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "kgrag-ann-keys-"));
    folders.push(workspace);
    const points = new ClusteredVectors(8, 3, 11);
    const store = await open(workspace);
    await store.upsertVectors("chunks", items(points, 120, "c"));
    await store.refreshIndexes();
    const manifest = rawManifest(workspace);
    expect(manifest.file).toMatch(/^chunks-\d+-[0-9a-f]{8}\.mixed\.usearch$/);
    expect(keysOfFile(manifest.file)).toBe("mixed");
    const index = newHnswIndex(8, VectorIndexSchema.parse({}));
    index.view(join(workspace, ANN_FOLDER, manifest.file));
    const db = new Database(sqliteFile(workspace), { readonly: true });
    const rowids = db
      .prepare("SELECT rowid FROM vectors WHERE namespace = 'chunks'")
      .pluck()
      .all() as number[];
    db.close();
    const keys = [...index.search(points.next(), 120, 1).keys].sort((a, b) => (a < b ? -1 : 1));
    expect(keys).toEqual(rowids.map((rowid) => fileKey(rowid, "mixed")).sort((a, b) => (a < b ? -1 : 1)));
    expect(keys).not.toEqual(rowids.map(BigInt));
  });

  it("reads a file keyed by rowid, keeps its keys through updates, deletes and a writer's fold; segments and background folds are mixed", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "kgrag-ann-keys-"));
    folders.push(workspace);
    const points = new ClusteredVectors(16, 5, 12);
    const config = VectorIndexSchema.parse({ kind: "ann", minVectors: 0, foldInBackground: false });
    const first = await open(workspace);
    await first.upsertVectors("chunks", items(points, 400, "c"));
    await first.refreshIndexes();
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    saveAsBeforeMixing(workspace, config);

    const store = await open(workspace);
    const exact = await open(workspace, { kind: "exact" });
    const queries = Array.from({ length: 8 }, () => Array.from(points.next()));
    const sameAsExact = async () => {
      for (const query of queries)
        expect(idsOf(await store.searchVectors("chunks", query, 10))).toEqual(
          idsOf(await exact.searchVectors("chunks", query, 10)),
        );
    };
    await sameAsExact();

    // New rows, rewritten rows and deletions beside the old file (under a tenth of it): a segment, mixed.
    const segmentRows = items(points, 20, "n");
    await store.upsertVectors("chunks", segmentRows);
    await store.upsertVectors("chunks", items(points, 5, "c"));
    await store.deleteVectors("chunks", ["c20", "c21", "c22"]);
    await store.refreshIndexes();
    const withSegment = rawManifest(workspace);
    expect(encodings(workspace)).toEqual({ main: "rowid", segments: ["mixed"] });
    await sameAsExact();
    // Rows only the segment holds are found through it, each its own nearest.
    for (const row of segmentRows.slice(0, 5))
      expect((await store.searchVectors("chunks", row.vector, 1))[0]?.id).toBe(row.id);

    // A writer's fold extends the old file in place of a rebuild: its keys stay rowids.
    const folder = await open(workspace, { maxSegments: 0 });
    await folder.upsertVectors("chunks", items(points, 5, "late"));
    await folder.refreshIndexes();
    const folded = rawManifest(workspace);
    expect(folded.file).not.toBe(withSegment.file);
    expect(encodings(workspace)).toEqual({ main: "rowid", segments: [] });
    await sameAsExact();
    const everything = idsOf(await store.searchVectors("chunks", queries[0] as number[], 500));
    expect(everything).toHaveLength(422);
    expect(everything).toEqual(idsOf(await exact.searchVectors("chunks", queries[0] as number[], 500)));

    // A background fold, off the writer's path, builds it anew with mixed keys.
    await store.upsertVectors("chunks", items(points, 3, "more"));
    await store.refreshIndexes();
    expect(encodings(workspace)).toEqual({ main: "rowid", segments: ["mixed"] });
    const db = new Database(sqliteFile(workspace), { readonly: true, fileMustExist: true });
    const due = VectorIndexSchema.parse({ kind: "ann", minVectors: 0, maxSegments: 0 });
    new AnnVectors(new Sql(db), new AnnFiles(workspace), due).foldSaved("chunks");
    db.close();
    const backgroundFolded = rawManifest(workspace);
    expect(backgroundFolded.file).not.toBe(folded.file);
    expect(encodings(workspace)).toEqual({ main: "mixed", segments: [] });
    await sameAsExact();
  });
});
