import type { ScoredId, VectorItem, VectorNamespace } from "../../types.js";
import { idList, type Sql } from "./connection.js";
import { normalizeInPlace, searchMatrix, type VectorMatrix } from "./vector-math.js";

interface CachedMatrix {
  generation: number;
  matrix: VectorMatrix;
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
  private readonly cache = new Map<VectorNamespace, CachedMatrix>();

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

  hashes(ns: VectorNamespace): Map<string, string> {
    const rows = this.sql.all<{ id: string; text_hash: string }>(
      "SELECT id, text_hash FROM vectors WHERE namespace = ?",
      ns,
    );
    return new Map(rows.map((row) => [row.id, row.text_hash]));
  }

  search(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): ScoredId[] {
    const matrix = this.matrix(ns);
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
    const dim = stored ?? (items[0] as VectorItem).vector.length;
    for (const item of items) {
      if (item.vector.length !== dim) {
        const against =
          stored === undefined ? "the other vectors in this batch" : "the vectors already stored";
        throw new Error(
          `Vector "${item.id}" has ${item.vector.length} dimensions but ${against} in namespace "${ns}" ` +
            `have ${dim}. The embedding model or its dimension changed: use the workspace's model, ` +
            "or start a new workspace to switch models.",
        );
      }
      if (dim === 0 || !item.vector.every(Number.isFinite)) {
        throw new Error(`Vector "${item.id}" in namespace "${ns}" is empty or holds non-finite numbers.`);
      }
    }
    return dim;
  }

  private bumpGeneration(ns: VectorNamespace): void {
    this.sql.run(
      `INSERT INTO vector_generations (namespace, generation) VALUES (?, 1)
       ON CONFLICT (namespace) DO UPDATE SET generation = generation + 1`,
      ns,
    );
  }

  private matrix(ns: VectorNamespace): VectorMatrix {
    const generation =
      this.sql.column<number>("SELECT generation FROM vector_generations WHERE namespace = ?", ns)[0] ?? 0;
    const cached = this.cache.get(ns);
    if (cached && cached.generation === generation) return cached.matrix;
    const matrix = this.load(ns);
    this.cache.set(ns, { generation, matrix });
    return matrix;
  }

  private load(ns: VectorNamespace): VectorMatrix {
    const rows = this.sql.all<VectorRow>(
      "SELECT id, vector FROM vectors WHERE namespace = ? ORDER BY id",
      ns,
    );
    const dim = rows.length > 0 ? (rows[0] as VectorRow).vector.byteLength / 4 : 0;
    const matrix = new Float32Array(rows.length * dim);
    const bytes = new Uint8Array(matrix.buffer);
    rows.forEach((row, index) => {
      // Byte copy: SQLite blobs are not guaranteed to be 4-byte aligned for a Float32Array view.
      bytes.set(row.vector, index * dim * 4);
      normalizeInPlace(matrix, index * dim, dim);
    });
    const ids = rows.map((row) => row.id);
    return { dim, ids, rowOf: new Map(ids.map((id, row) => [id, row])), rows: matrix };
  }
}
