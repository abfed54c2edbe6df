/**
 * The cost of a workspace's vector rows alone: every vector of an existing workspace (read and
 * decoded from its SQLite file, which is not changed) written into a fresh workspace through
 * upsertVectors 256 at a time, as an index run writes them, then the fresh file's size, the CPU of
 * the first search in each namespace (loading its matrix) and of 200 searches, with a hash of their
 * hits (ids and scores): two versions of the storage code store the same vectors when the hashes
 * agree. Marks the fresh workspace's embedder as the source's, so the same search path is taken.
 * The source is only read (an older workspace is not migrated), so the same file can be measured
 * by an older checkout of kgrag holding this file (its own vectors then need to be dense).
 * Run: npx tsx bench/vector-rows.ts WORKSPACE_DIR
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSqliteStore, sqliteFile } from "../src/storage/sqlite/sqlite-store.js";
import { decodeVector } from "../src/storage/vectors/vector-blob.js";
import type { VectorItem, VectorNamespace } from "../src/types.js";

const WRITE_BATCH = 256;
const SEARCHES = 200;

interface StoredRow {
  namespace: VectorNamespace;
  id: string;
  dim: number;
  text_hash: string;
  vector: Buffer;
}

/** The source's vectors by namespace in rowid order, read only (an old file is not migrated). */
function readVectors(workspace: string): { byNs: Map<VectorNamespace, VectorItem[]>; kind?: string } {
  const db = new Database(sqliteFile(workspace), { readonly: true });
  try {
    const byNs = new Map<VectorNamespace, VectorItem[]>();
    const rows = db
      .prepare("SELECT namespace, id, dim, text_hash, vector FROM vectors ORDER BY rowid")
      .iterate() as IterableIterator<StoredRow>;
    for (const row of rows) {
      const items = byNs.get(row.namespace) ?? [];
      const vector = Array.from(decodeVector(row.vector, row.dim, row.id));
      items.push({ id: row.id, textHash: row.text_hash, vector });
      byNs.set(row.namespace, items);
    }
    const kind = db.prepare("SELECT value FROM meta WHERE key = 'embedding.kind'").pluck().get() as
      | string
      | undefined;
    return { byNs, ...(kind ? { kind } : {}) };
  } finally {
    db.close();
  }
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return Math.round((used.user + used.system) / 1000);
}

async function main(): Promise<void> {
  const workspace = process.argv[2];
  if (!workspace) throw new Error("Usage: npx tsx bench/vector-rows.ts WORKSPACE_DIR");
  const { byNs, kind } = readVectors(workspace);
  const dir = mkdtempSync(join(tmpdir(), "kgrag-bench-vector-rows-"));
  try {
    const store = await openSqliteStore(dir, { pageSize: 16_384 });
    if (kind) await store.setMeta("embedding.kind", kind);
    let count = 0;
    const writing = process.cpuUsage();
    for (const [ns, items] of byNs) {
      for (let i = 0; i < items.length; i += WRITE_BATCH)
        await store.upsertVectors(ns, items.slice(i, i + WRITE_BATCH));
      count += items.length;
    }
    const writeMs = cpuMs(writing);
    await store.close();
    const bytes = statSync(sqliteFile(dir)).size;
    const reopened = await openSqliteStore(dir);
    const queries = [...byNs.values()].flat();
    const loading = process.cpuUsage();
    for (const ns of byNs.keys()) await reopened.searchVectors(ns, queries[0]?.vector ?? [], 10);
    const loadMs = cpuMs(loading);
    const hits = createHash("sha256");
    const searching = process.cpuUsage();
    const step = Math.max(1, Math.floor(queries.length / SEARCHES));
    for (const ns of byNs.keys()) {
      for (let q = 0; q < SEARCHES; q++) {
        const query = queries[(q * step) % queries.length]?.vector ?? [];
        for (const hit of await reopened.searchVectors(ns, query, 10)) hits.update(`${hit.id}:${hit.score};`);
      }
    }
    const searchMs = cpuMs(searching);
    await reopened.close();
    console.log(
      `${count} vectors: write ${writeMs} ms CPU, file ${(bytes / 1e6).toFixed(1)} MB; ` +
        `first search per namespace ${loadMs} ms CPU; ${SEARCHES} searches per namespace ${searchMs} ms CPU; ` +
        `hits ${hits.digest("hex").slice(0, 16)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
