import type { QueryGraph } from "./query-graph.js";

/**
 * How specific each entity is: its inverse document frequency over chunks, log(1 + N / df). A
 * question's "Big Stone Gap" (in 3 chunks) should steer retrieval far more than its "film" or
 * "city" (in hundreds), just as rare terms outweigh common ones in BM25; HippoRAG weights its
 * PageRank seeds by node specificity for the same reason. Unknown entities get nothing.
 */
export async function entitySpecificity(graph: QueryGraph, keys: string[]): Promise<Map<string, number>> {
  const total = await graph.chunkCount();
  const idf = new Map<string, number>();
  for (const entity of await graph.entities(keys)) {
    idf.set(entity.key, Math.log(1 + total / Math.max(1, entity.sourceChunkIds.length)));
  }
  return idf;
}
