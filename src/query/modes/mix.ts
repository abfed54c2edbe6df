import { reciprocalRankFusion } from "../fusion.js";
import { retrieveGlobal } from "./global.js";
import { mergeGraphHits } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveNaive } from "./naive.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * The graph and the passages together: hybrid's entities, relationships and reports, and the
 * chunk rankings of local, global and naive retrieval fused by reciprocal rank, so a passage that
 * several retrievers find comes first and each retriever still contributes its best.
 */
export async function retrieveMix(input: RetrievalInput): Promise<Retrieval> {
  const [local, global, passages] = await Promise.all([
    retrieveLocal(input),
    retrieveGlobal(input),
    retrieveNaive(input),
  ]);
  const graph = mergeGraphHits(local, global);
  const chunks = reciprocalRankFusion([local.chunks, global.chunks, passages.chunks]);
  return { ...graph, chunks: chunks.slice(0, input.options.chunkTopK) };
}
