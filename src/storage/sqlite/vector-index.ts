import type { VectorIndexConfig } from "../../config.js";
import type { ScoredId, VectorItem, VectorNamespace } from "../../types.js";
import { vectorDimension } from "../input-checks.js";
import { decodeVector, VectorBlobEncoder } from "../vectors/vector-blob.js";
import { MatrixBuilder, searchMatrix, type VectorMatrix } from "../vectors/vector-math.js";
import type { AnnVectors } from "./ann-vectors.js";
import { idList, type Sql } from "./connection.js";
import { GenerationMap } from "./generation-map.js";

interface Cached<T> {
  generation: number;
  value: T;
}

interface VectorRow {
  id: string;
  vector: Buffer;
}

/** How one namespace is searched, and why (see VectorIndexConfig). */
export type SearchPath = "exact" | "ann";

/**
 * Vectors stored as BLOBs of Float32 values, dense or sparse (vector-blob.ts), each row stamped with the namespace generation that wrote it.
 * Searched either exactly, over an in-memory matrix per namespace (loaded on first search and
 * reloaded when the namespace's generation, bumped by every write from any connection or
 * process, no longer matches), or through an HNSW file (ann-vectors.ts) for large dense sets.
 */
export class VectorIndex {
  private readonly matrices = new Map<VectorNamespace, Cached<VectorMatrix>>();
  private readonly textHashes = new Map<VectorNamespace, Cached<Map<string, string>>>();
  private readonly sizes = new Map<VectorNamespace, Cached<number>>();
  /** Whether each namespace holds `minVectors` (a constant per store), by generation. */
  private readonly reachesMinimum = new Map<VectorNamespace, Cached<boolean>>();
  /**
   * Each namespace's generation and the embedder kind, read once per data generation (any write,
   * here or by another process) rather than by a statement on every search: a query searches
   * three or four namespaces, and these reads were most of a small search's fixed cost.
   */
  private readonly namespaceGenerations: GenerationMap<VectorNamespace, number>;
  private readonly embeddingKinds: GenerationMap<"kind", string | undefined>;

  constructor(
    private readonly sql: Sql,
    private readonly ann?: { vectors: AnnVectors; config: VectorIndexConfig },
  ) {
    this.namespaceGenerations = new GenerationMap(sql, 16);
    this.embeddingKinds = new GenerationMap(sql, 1);
  }

  /** Call inside a transaction: the dimension check and the writes must see the same state. */
  upsert(ns: VectorNamespace, items: VectorItem[]): void {
    if (items.length === 0) return;
    const dim = this.checkDimensions(ns, items);
    const generation = this.bumpGeneration(ns);
    // An update keeps the row's rowid, which is its key in the HNSW file.
    const insert = this.sql.statement(
      `INSERT INTO vectors (namespace, id, dim, text_hash, vector, gen) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (namespace, id) DO UPDATE SET
         dim = excluded.dim, text_hash = excluded.text_hash, vector = excluded.vector, gen = excluded.gen`,
    );
    const encoder = new VectorBlobEncoder(dim);
    for (const item of items)
      insert.run(ns, item.id, dim, item.textHash, encoder.encode(item.vector), generation);
  }

  delete(ns: VectorNamespace, ids: string[]): void {
    if (ids.length === 0) return;
    const list = idList(ids);
    const present = this.sql.get(
      "SELECT 1 FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?)) LIMIT 1",
      ns,
      list,
    );
    if (!present) return;
    const generation = this.bumpGeneration(ns);
    // The keys leave the HNSW file at its next refresh; until then searches skip them (no row).
    this.sql.run(
      `INSERT INTO vector_removals (namespace, key, gen)
       SELECT namespace, rowid, ? FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))`,
      generation,
      ns,
      list,
    );
    this.sql.run(
      "DELETE FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))",
      ns,
      list,
    );
  }

  get(ns: VectorNamespace, ids: string[]): VectorItem[] {
    const rows = this.sql.all<VectorRow & { text_hash: string; dim: number }>(
      "SELECT id, text_hash, dim, vector FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))",
      ns,
      idList(ids),
    );
    return rows.map((row) => ({
      id: row.id,
      textHash: row.text_hash,
      vector: Array.from(decodeVector(row.vector, row.dim, row.id)),
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
    if (this.ann && this.searchPath(ns) === "ann") return this.ann.vectors.search(ns, query, topK, allow);
    return this.searchExact(ns, query, topK, allow);
  }

  /**
   * HNSW for dense vectors from `minVectors` up ("auto"); the hashing embedder's sparse vectors
   * stay exact, where the column scan touches only their non-zero dimensions (measured faster).
   */
  searchPath(ns: VectorNamespace): SearchPath {
    const config = this.ann?.config;
    if (!config || config.kind === "exact") return "exact";
    if (config.kind === "ann") return "ann";
    const sparse = this.embeddingKind() === "hashing";
    return !sparse && this.holdsAtLeast(ns, config.minVectors) ? "ann" : "exact";
  }

  /**
   * Whether the namespace stores at least `count` vectors, asked again only when it changed. Counts
   * no further than `count`: a full count after every write cost a search about 10 ms at 110k rows.
   */
  private holdsAtLeast(ns: VectorNamespace, count: number): boolean {
    return this.cached(this.reachesMinimum, ns, () => {
      const counted = this.sql.column<number>(
        "SELECT count(*) FROM (SELECT 1 FROM vectors WHERE namespace = ? LIMIT ?)",
        ns,
        count,
      )[0];
      return (counted ?? 0) >= count;
    });
  }

  /** Vectors stored in the namespace, counted again only when it changed. */
  size(ns: VectorNamespace): number {
    return this.cached(this.sizes, ns, () => {
      return this.sql.column<number>("SELECT count(*) FROM vectors WHERE namespace = ?", ns)[0] ?? 0;
    });
  }

  searchExact(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): ScoredId[] {
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

  /** The namespace's next generation, stamped on the rows written with it. */
  private bumpGeneration(ns: VectorNamespace): number {
    return this.sql.get<{ generation: number }>(
      `INSERT INTO vector_generations (namespace, generation) VALUES (?, 1)
       ON CONFLICT (namespace) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      ns,
    )?.generation as number;
  }

  /** The embedder kind the workspace was indexed with (meta `embedding.kind`). */
  private embeddingKind(): string | undefined {
    const known = this.embeddingKinds.current(0);
    if (known.has("kind")) return known.get("kind");
    const kind = this.sql.column<string>("SELECT value FROM meta WHERE key = 'embedding.kind'")[0];
    this.embeddingKinds.current(1).set("kind", kind);
    return kind;
  }

  /** The namespace's generation: bumped by every write to it, from any connection or process. */
  private namespaceGeneration(ns: VectorNamespace): number {
    const known = this.namespaceGenerations.current(0).get(ns);
    if (known !== undefined) return known;
    const generation =
      this.sql.column<number>("SELECT generation FROM vector_generations WHERE namespace = ?", ns)[0] ?? 0;
    this.namespaceGenerations.current(1).set(ns, generation);
    return generation;
  }

  /** The cached value while the namespace's generation is unchanged, else a freshly built one. */
  private cached<T>(cache: Map<VectorNamespace, Cached<T>>, ns: VectorNamespace, build: () => T): T {
    const generation = this.namespaceGeneration(ns);
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
