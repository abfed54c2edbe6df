import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { workspaceFingerprint } from "../../bench/support/workspace-fingerprint.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "../../src/storage/sqlite/schema.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import {
  decodeVector,
  isVectorBlob,
  sparseMaskBytes,
  VectorBlobEncoder,
} from "../../src/storage/vectors/vector-blob.js";
import type { VectorItem } from "../../src/types.js";
import { openAnnStore } from "../support/ann-fixtures.js";

const folders: string[] = [];

async function tempWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-vector-blob-"));
  folders.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(folders.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The bits of each value once stored as Float32, which both forms must give back. */
function float32Bits(vector: ArrayLike<number>): number[] {
  return Array.from(new Uint32Array(Float32Array.from(vector).buffer));
}

function bitsOf(vector: Float32Array): number[] {
  return Array.from(new Uint32Array(vector.buffer, vector.byteOffset, vector.length));
}

/** A deterministic pseudo-random sequence, so a failure repeats. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

function sparseVector(dim: number, nonZero: number, random: () => number): number[] {
  const vector = new Array<number>(dim).fill(0);
  for (let i = 0; i < nonZero; i++) vector[Math.floor(random() * dim)] = random() * 2 - 1;
  return vector;
}

const SENTENCES = [
  "Ada Lovelace wrote the first published algorithm for Babbage's Analytical Engine.",
  "Charles Babbage designed the Analytical Engine, a mechanical general-purpose computer.",
  "The Analytical Engine was never completed during Babbage's lifetime.",
  "Alan Turing formalised computation with the Turing machine in 1936.",
  "Grace Hopper built the first compiler and popularised machine-independent languages.",
  "The Difference Engine computed polynomial tables by the method of finite differences.",
  "Lovelace and Babbage corresponded about the engine's ability to manipulate symbols.",
  "Turing worked at Bletchley Park on breaking the Enigma cipher during the war.",
];

/** Hashing vectors of short texts (sparse) and of the sentences joined (denser), as an index run stores them. */
async function hashingItems(): Promise<VectorItem[]> {
  const embedder = new HashingEmbedder(512);
  const texts = [...SENTENCES, SENTENCES.join(" "), SENTENCES.slice(0, 4).join(" "), ""];
  const vectors = await embedder.embed(texts);
  return vectors.map((vector, i) => ({ id: `t${i}`, textHash: `h${i}`, vector }));
}

/** Rewrites every stored vector in its dense Float32 form, as kgrag stored all of them before. */
function rewriteDense(workspace: string): void {
  const db = new Database(sqliteFile(workspace));
  const rows = db.prepare("SELECT rowid, dim, vector FROM vectors").all() as {
    rowid: number;
    dim: number;
    vector: Buffer;
  }[];
  const update = db.prepare("UPDATE vectors SET vector = ? WHERE rowid = ?");
  for (const row of rows) {
    const dense = decodeVector(row.vector, row.dim);
    update.run(Buffer.from(dense.buffer), row.rowid);
  }
  db.close();
}

function storedLengths(workspace: string): Map<string, number> {
  const db = new Database(sqliteFile(workspace), { readonly: true });
  const rows = db.prepare("SELECT id, length(vector) AS bytes FROM vectors").all() as {
    id: string;
    bytes: number;
  }[];
  db.close();
  return new Map(rows.map((row) => [row.id, row.bytes]));
}

describe("vector blob forms", () => {
  it("gives back every Float32 value to the last bit, in the shorter form", () => {
    const random = seeded(7);
    for (const dim of [1, 7, 31, 32, 33, 100, 512]) {
      const encoder = new VectorBlobEncoder(dim);
      for (const nonZero of [0, 1, Math.ceil(dim / 10), Math.ceil(dim / 2), dim * 3]) {
        const vector = sparseVector(dim, nonZero, random);
        const blob = encoder.encode(vector);
        expect(bitsOf(decodeVector(blob, dim))).toEqual(float32Bits(vector));
        const values = vector.filter((x) => x !== 0).length;
        const sparseBytes = sparseMaskBytes(dim) + values * 4;
        expect(blob.byteLength).toBe(Math.min(sparseBytes, dim * 4));
        expect(isVectorBlob(blob, dim)).toBe(true);
      }
    }
  });

  it("keeps a negative zero, values that round to zero in Float32 and the extremes exactly", () => {
    const dim = 64;
    const vector = new Array<number>(dim).fill(0);
    vector[3] = -0;
    vector[10] = 1e-50; // 0 once stored as Float32, as the dense form stored it
    vector[11] = -1e-50; // -0 once stored
    vector[20] = 3.4e38;
    vector[63] = 1.4e-45;
    const blob = new VectorBlobEncoder(dim).encode(vector);
    expect(blob.byteLength).toBeLessThan(dim * 4);
    const decoded = decodeVector(blob, dim);
    expect(bitsOf(decoded)).toEqual(float32Bits(vector));
    expect(Object.is(decoded[3], -0)).toBe(true);
    expect(Object.is(decoded[11], -0)).toBe(true);
  });

  it("reads a dense blob as it was always stored, also unaligned in a larger buffer", () => {
    const random = seeded(11);
    const vector = Float32Array.from({ length: 48 }, () => random() - 0.5);
    const backing = new Uint8Array(1 + vector.byteLength);
    backing.set(new Uint8Array(vector.buffer), 1);
    const blob = backing.subarray(1);
    expect(bitsOf(decodeVector(blob, 48))).toEqual(bitsOf(vector));
    const sparse = new VectorBlobEncoder(48).encode(sparseVector(48, 3, random));
    const shifted = new Uint8Array(3 + sparse.byteLength);
    shifted.set(sparse, 3);
    expect(bitsOf(decodeVector(shifted.subarray(3), 48))).toEqual(bitsOf(decodeVector(sparse, 48)));
  });

  it("refuses bytes that are neither form, naming the vector", () => {
    const dim = 40; // two bitmap words, the last 24 bits past the end
    expect(isVectorBlob(new Uint8Array(dim * 4 + 4), dim)).toBe(false);
    expect(isVectorBlob(new Uint8Array(3), dim)).toBe(false);
    const oneValue = new Uint8Array(sparseMaskBytes(dim) + 4);
    oneValue[0] = 1;
    expect(isVectorBlob(oneValue, dim)).toBe(true);
    const bitPastEnd = oneValue.slice();
    bitPastEnd[0] = 0;
    bitPastEnd[6] = 1; // dimension 48 of 40
    expect(isVectorBlob(bitPastEnd, dim)).toBe(false);
    const countMismatch = oneValue.slice();
    countMismatch[1] = 1; // two values announced, one stored
    expect(isVectorBlob(countMismatch, dim)).toBe(false);
    expect(() => decodeVector(countMismatch, dim, "r1")).toThrow(/Vector "r1" is stored in 12 bytes/);
  });
});

describe("SQLite vector rows in the sparse form", () => {
  it("stores hashing vectors sparsely and gives them back as written", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    const items = await hashingItems();
    await store.upsertVectors("relationships", items);
    const lengths = storedLengths(workspace);
    // One sentence touches about a third of the 512 dimensions: well under the dense 2,048 bytes.
    expect(lengths.get("t0")).toBeLessThan(1024);
    expect(lengths.get("t10")).toBe(sparseMaskBytes(512)); // no words: the zero vector
    const back = await store.getVectors(
      "relationships",
      items.map((item) => item.id),
    );
    const byId = new Map(back.map((item) => [item.id, item]));
    for (const item of items) {
      expect(byId.get(item.id)?.textHash).toBe(item.textHash);
      expect(float32Bits(byId.get(item.id)?.vector ?? [])).toEqual(float32Bits(item.vector));
    }
    await store.close();
  });

  for (const path of ["exact", "ann"] as const) {
    it(`searches (${path}) exactly as over the same vectors stored dense`, async () => {
      const items = await hashingItems();
      const sparseWorkspace = await tempWorkspace();
      const denseWorkspace = await tempWorkspace();
      const open = (workspace: string) =>
        path === "ann" ? openAnnStore(workspace) : openSqliteStore(workspace);
      for (const workspace of [sparseWorkspace, denseWorkspace]) {
        const store = await open(workspace);
        await store.upsertVectors("relationships", items);
        await store.close();
      }
      rewriteDense(denseWorkspace);
      const lengths = storedLengths(denseWorkspace);
      expect([...lengths.values()].every((bytes) => bytes === 2048)).toBe(true);
      const stores = [await open(sparseWorkspace), await open(denseWorkspace)] as SqliteGraphStore[];
      const queries = [
        ...items.map((item) => item.vector),
        ...(await new HashingEmbedder().embed(["Babbage engine"])),
      ];
      for (const query of queries) {
        const [sparse, dense] = await Promise.all(
          stores.map((store) => store.searchVectors("relationships", query, 5)),
        );
        expect(sparse).toEqual(dense);
        const allow = new Set(["t1", "t2", "t6"]);
        const [sparseScoped, denseScoped] = await Promise.all(
          stores.map((store) => store.searchVectors("relationships", query, 2, allow)),
        );
        expect(sparseScoped).toEqual(denseScoped);
      }
      expect(workspaceFingerprint(sqliteFile(sparseWorkspace)).vectors).toBe(
        workspaceFingerprint(sqliteFile(denseWorkspace)).vectors,
      );
      for (const store of stores) await store.close();
    });
  }

  it("reads dense rows of a version 7 workspace beside new sparse ones, and updates and deletes both", async () => {
    const workspace = await tempWorkspace();
    const items = await hashingItems();
    const first = await openSqliteStore(workspace);
    await first.upsertVectors("entities", items.slice(0, 6));
    await first.close();
    rewriteDense(workspace);
    const db = new Database(sqliteFile(workspace));
    db.prepare("UPDATE meta SET value = '7' WHERE key = ?").run(SCHEMA_VERSION_KEY);
    db.close();

    const store = await openSqliteStore(workspace);
    const version = new Database(sqliteFile(workspace), { readonly: true });
    expect(version.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(SCHEMA_VERSION_KEY)).toBe(
      String(SCHEMA_VERSION),
    );
    version.close();
    await store.upsertVectors("entities", items.slice(6));
    const lengths = storedLengths(workspace);
    expect(lengths.get("t0")).toBe(2048);
    expect(lengths.get("t6")).toBeLessThan(2048);
    const hit = async (vector: number[]) => (await store.searchVectors("entities", vector, 1))[0]?.id;
    expect(await hit(items[0]?.vector ?? [])).toBe("t0");
    expect(await hit(items[6]?.vector ?? [])).toBe("t6");

    // An old dense row rewritten takes the sparse form; a sparse one rewritten with a dense vector, the dense.
    const random = seeded(3);
    const denseVector = Array.from({ length: 512 }, () => random() - 0.5);
    await store.upsertVectors("entities", [
      { id: "t0", textHash: "new0", vector: items[7]?.vector ?? [] },
      { id: "t7", textHash: "new7", vector: denseVector },
    ]);
    const rewritten = storedLengths(workspace);
    expect(rewritten.get("t0")).toBeLessThan(2048);
    expect(rewritten.get("t7")).toBe(2048);
    const [t0, t7] = await store.getVectors("entities", ["t0", "t7"]);
    expect(float32Bits(t0?.vector ?? [])).toEqual(float32Bits(items[7]?.vector ?? []));
    expect(float32Bits(t7?.vector ?? [])).toEqual(float32Bits(denseVector));
    expect(await hit(denseVector)).toBe("t7");

    await store.deleteVectors("entities", ["t1", "t6"]);
    expect(storedLengths(workspace).has("t1")).toBe(false);
    expect(await store.getVectors("entities", ["t1", "t6"])).toEqual([]);
    const left = await store.searchVectors("entities", items[6]?.vector ?? [], 20);
    expect(left.map((h) => h.id)).not.toContain("t6");
    expect(left.map((h) => h.id)).not.toContain("t1");
    await store.close();
  });
});
