import type { ScoredId, VectorItem, VectorNamespace } from "../../types.js";
import { vectorDimension } from "../input-checks.js";
import { idList, type Sql } from "./connection.js";
import { MatrixBuilder, searchMatrix, type VectorMatrix } from "./vector-math.js";

interface Cached<T> {
  generation: number;
  value: T;
}

interface VectorRow {
  id: string;
  vector: Buffer;
}

/**
 * Vectors stored as Float32 BLOBs, searched by exact cosine over an in-memory matrix per namespace.
 * The matrix is loaded on first search and reloaded when the namespace's generation (bumped by
 * every write, from any connection or process) no longer matches.
 */
export class VectorIndex {
  private readonly matrices = new Map<VectorNamespace, Cached<VectorMatrix>>();
  private readonly textHashes = new Map<VectorNamespace, Cached<Map<string, string>>>();

  constructor(private readonly sql: Sql) {}

  /** Call inside a transaction: the dimension check and the writes must see the same state. */
  upsert(ns: VectorNamespace, items: VectorItem[]): void {
    if (items.length === 0) return;
    const dim = this.checkDimensions(ns, items);
    const insert = this.sql.statement(
      "INSERT OR REPLACE INTO vectors (namespace, id, dim, text_hash, vector) VALUES (?, ?, ?, ?, ?)",
    );
    for (const item of items) {
      const blob = new Float32Array(item.vector);
      insert.run(ns, item.id, dim, item.textHash, Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength));
    }
    this.bumpGeneration(ns);
  }

  delete(ns: VectorNamespace, ids: string[]): void {
    if (ids.length === 0) return;
    const result = this.sql.run(
      "DELETE FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))",
      ns,
      idList(ids),
    );
    if (result.changes > 0) this.bumpGeneration(ns);
  }

  get(ns: VectorNamespace, ids: string[]): VectorItem[] {
    const rows = this.sql.all<VectorRow & { text_hash: string }>(
      "SELECT id, text_hash, vector FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))",
      ns,
      idList(ids),
    );
    return rows.map((row) => ({
      id: row.id,
      textHash: row.text_hash,
      vector: Array.from(
        new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4),
      ),
    }));
  }

  /** A fresh copy each call; read from SQLite only when the namespace changed (queries ask often). */
  hashes(ns: VectorNamespace): Map<string, string> {
    const hashes = this.cached(this.textHashes, ns, () => {
      const rows = this.sql.all<{ id: string; text_hash: string }>(
        "SELECT id, text_hash FROM vectors WHERE namespace = ?",
        ns,
      );
      return new Map(rows.map((row) => [row.id, row.text_hash]));
    });
    return new Map(hashes);
  }

  search(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): ScoredId[] {
    const matrix = this.cached(this.matrices, ns, () => this.load(ns));
    if (matrix.ids.length === 0 || topK <= 0) return [];
    if (query.length !== matrix.dim) {
      throw new Error(
        `Query vector has ${query.length} dimensions but the "${ns}" vectors have ${matrix.dim}: ` +
          "embed the query with the workspace's embedding model.",
      );
    }
    return searchMatrix(matrix, query, topK, allow);
  }

  private checkDimensions(ns: VectorNamespace, items: VectorItem[]): number {
    const stored = this.sql.column<number>("SELECT dim FROM vectors WHERE namespace = ? LIMIT 1", ns)[0];
    return vectorDimension(ns, items, stored);
  }

  private bumpGeneration(ns: VectorNamespace): void {
    this.sql.run(
      `INSERT INTO vector_generations (namespace, generation) VALUES (?, 1)
       ON CONFLICT (namespace) DO UPDATE SET generation = generation + 1`,
      ns,
    );
  }

  /** The cached value while the namespace's generation is unchanged, else a freshly built one. */
  private cached<T>(cache: Map<VectorNamespace, Cached<T>>, ns: VectorNamespace, build: () => T): T {
    const generation =
      this.sql.column<number>("SELECT generation FROM vector_generations WHERE namespace = ?", ns)[0] ?? 0;
    const hit = cache.get(ns);
    if (hit && hit.generation === generation) return hit.value;
    const value = build();
    cache.set(ns, { generation, value });
    return value;
  }

  /**
   * Streams the rows into the matrix in one read transaction, so the count and the rows agree
   * and the blobs are never all held at once.
   */
  private load(ns: VectorNamespace): VectorMatrix {
    const read = () => {
      const size = this.sql.column<number>("SELECT count(*) FROM vectors WHERE namespace = ?", ns)[0] ?? 0;
      const dim = this.sql.column<number>("SELECT dim FROM vectors WHERE namespace = ? LIMIT 1", ns)[0] ?? 0;
      const builder = new MatrixBuilder(size, dim);
      const rows = this.sql
        .statement("SELECT id, vector FROM vectors WHERE namespace = ? ORDER BY id")
        .iterate(ns) as IterableIterator<VectorRow>;
      for (const row of rows) builder.add(row.id, row.vector);
      return builder.finish();
    };
    return this.sql.db.inTransaction ? read() : this.sql.db.transaction(read).deferred();
  }
}
