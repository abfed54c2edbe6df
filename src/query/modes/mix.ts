import { weightedReciprocalRankFusion } from "../fusion.js";
import { retrieveGlobal } from "./global.js";
import { mergeGraphHits } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveNaive } from "./naive.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * The graph and the passages together: hybrid's entities, relationships and reports, and the
 * passages of both graph walks (local from the named entities, global from the matched
 * relationships) fused with the passages the question itself matches (naive: vectors + BM25) by
 * reciprocal rank, as HippoRAG and fast-graphrag pair query-level lexical evidence with PageRank
 * from the linked entities. Fusing the three lists beat interleaving them and fusing hybrid's
 * interleaved list with naive's (measured; see docs/query.md).
 */
export async function retrieveMix(input: RetrievalInput): Promise<Retrieval> {
  const [local, global, passages] = await Promise.all([
    retrieveLocal(input),
    retrieveGlobal(input),
    retrieveNaive(input),
  ]);
  const graph = mergeGraphHits(local, global);
  const weights = input.services.config.query.fusion;
  const chunks = weightedReciprocalRankFusion([
    { items: local.chunks, weight: weights.mixLocal },
    { items: global.chunks, weight: weights.mixGlobal },
    { items: passages.chunks, weight: weights.mixNaive },
  ]);
  return { ...graph, chunks: chunks.slice(0, input.options.chunkTopK) };
}
