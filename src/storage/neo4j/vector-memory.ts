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
    /** About how many vectors the namespace holds (its records): the matrix's first size. */
    private readonly expectedSize: (ns: VectorNamespace) => Promise<number>,
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

  /**
   * Streams the namespace's vectors into the matrix: held whole as lists of numbers, 222,641
   * relationship vectors of 512 dimensions would take about a gigabyte of heap on their way in.
   */
  private async load(ns: VectorNamespace, dimension: number): Promise<VectorMatrix> {
    const builder = new MatrixBuilder(await this.expectedSize(ns), dimension, true);
    const values = new Float32Array(dimension);
    const bytes = new Uint8Array(values.buffer);
    await this.db.readEach(`store/vectors/${ns}/all`, {}, (row) => {
      if (!Array.isArray(row.vector) || row.vector.length !== dimension) return;
      // Bolt floats arrive as numbers; millions of them are not worth a schema check each.
      for (let i = 0; i < dimension; i++) values[i] = Number(row.vector[i]);
      builder.add(String(row.id), bytes);
    });
    return builder.finish();
  }
}
