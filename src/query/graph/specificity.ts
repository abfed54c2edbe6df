import type { QueryGraph } from "./query-graph.js";

/**
 * How specific each entity is: the inverse of the number of chunks that mention it, HippoRAG's
 * node specificity (1 / |passages|). A question's "Big Stone Gap" (in 3 chunks) should steer
 * retrieval far more than its "film" or "city" (in hundreds). The logarithmic IDF of BM25 was
 * measured too: it flattens the gap so much that a question's generic nouns, linked to entities
 * of a few chunks each, outweighed its names. Unknown entities get nothing.
 */
export async function entitySpecificity(graph: QueryGraph, keys: string[]): Promise<Map<string, number>> {
  const specificity = new Map<string, number>();
  for (const entity of await graph.entities(keys)) {
    specificity.set(entity.key, 1 / Math.max(1, entity.sourceChunkIds.length));
  }
  return specificity;
}
