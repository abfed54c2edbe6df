import { reciprocalRankFusion } from "../fusion.js";
import { retrieveThemes } from "./global.js";
import { mergeGraphHits } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveNaive } from "./naive.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * The graph and the passages together: hybrid's entities, relationships and reports, and the
 * passages of the entity walk (local) fused with the passages the question itself matches
 * (naive: vectors + BM25) by reciprocal rank, as HippoRAG and fast-graphrag pair query-level
 * lexical evidence with PageRank from the linked entities. Global's passages inform the
 * relationships and reports but are not fused: reached through loosely matched themes, they
 * pushed gold passages out more often than they added one (measured; see docs/query.md), so
 * mix takes global's relationships, entities and reports without its graph walk (retrieveThemes).
 */
export async function retrieveMix(input: RetrievalInput): Promise<Retrieval> {
  const [local, global, passages] = await Promise.all([
    retrieveLocal(input),
    retrieveThemes(input),
    retrieveNaive(input),
  ]);
  const graph = mergeGraphHits(local, global);
  const chunks = reciprocalRankFusion([local.chunks, passages.chunks]);
  return { ...graph, chunks: chunks.slice(0, input.options.chunkTopK) };
}
