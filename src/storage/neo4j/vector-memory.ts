import type { ScoredId, VectorNamespace } from "../../types.js";
import { MatrixBuilder, searchMatrix, type VectorMatrix } from "../vectors/vector-math.js";
import type { Neo4jConnection } from "./connection.js";
import type { GenerationCache } from "./generation-cache.js";
import { norm } from "./vectors.js";

/**
 * Exact cosine ranking in this process, over the namespace's vectors read once per write
 * generation: as the embedded store ranks below its HNSW threshold. The server's vector index is
 * approximate (and its recall on the hashing embedder's sparse vectors is poor), its exact Cypher
 * reads every vector per query, and a community search through the index cost 70-110 ms a query.
 */
export class InMemoryVectors {
  constructor(
    private readonly db: Neo4jConnection,
    private readonly cached: GenerationCache,
    /**
     * Namespaces of at most this many floats (vectors x dimension, `neo4j.inMemoryVectorFloats`)
     * are ranked in memory; larger ones go to the server (exact Cypher or its vector index).
     */
    private readonly maxFloats: number,
  ) {}

  /** Whether a namespace of about this many vectors of this dimension is ranked here. */
  fits(vectors: number, dimension: number): boolean {
    return vectors * dimension <= this.maxFloats;
  }

  async search(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    if (topK <= 0 || allow?.size === 0 || norm(query) === 0) return [];
    const matrix = await this.cached.get(`vectors:${ns}`, () => this.load(ns, query.length));
    if (matrix.ids.length === 0) return [];
    return searchMatrix(matrix, query, topK, allow);
  }

  private async load(ns: VectorNamespace, dimension: number): Promise<VectorMatrix> {
    const rows = (await this.db.read(`store/vectors/${ns}/all`)).filter(
      (row) => Array.isArray(row.vector) && row.vector.length === dimension,
    );
    const builder = new MatrixBuilder(rows.length, dimension);
    for (const row of rows) {
      // Bolt floats arrive as numbers; millions of them are not worth a schema check each.
      const values = Float32Array.from(row.vector as unknown[], Number);
      builder.add(String(row.id), new Uint8Array(values.buffer));
    }
    return builder.finish();
  }
}
