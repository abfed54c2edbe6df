import type { ScoredId } from "../../types.js";
import type { RetrievalInput } from "./retrieval.js";

/**
 * The graph walks' passages in the question's own order: BM25 of the question over those passages
 * only, so no passage the walks did not find is added. A walk ranks a passage by how central its
 * entities are, not by whether it says what was asked; hybrid interleaves this order with the
 * walks' (query.fusion.graphPassageText; off: none).
 */
export async function questionOrderOf(input: RetrievalInput, passages: ScoredId[]): Promise<ScoredId[]> {
  if (!input.services.config.query.fusion.graphPassageText || passages.length === 0) return [];
  const candidates = new Set(passages.map((c) => c.id));
  return input.services.store.searchChunkText(input.question, candidates.size, candidates);
}
