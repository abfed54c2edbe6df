import { reciprocalRankFusion } from "../fusion.js";
import {
  candidateDepth,
  EMPTY_RETRIEVAL,
  type Retrieval,
  type RetrievalInput,
  vectorFor,
} from "./retrieval.js";

/**
 * Passages only: chunk vector search fused with BM25 over the chunk text by reciprocal rank
 * fusion, so exact names, codes and numbers that an embedding blurs are still found.
 */
export async function retrieveNaive(input: RetrievalInput): Promise<Retrieval> {
  const { store } = input.services;
  const { options, question } = input;
  const allow = input.graph.scope?.chunkIds;
  const depth = candidateDepth(options);
  const vector = vectorFor(input, question);
  const [byVector, byText] = await Promise.all([
    store.searchVectors("chunks", vector, depth, allow),
    store.searchChunkText(question, depth, allow),
  ]);
  const similar = byVector.filter((h) => h.score >= options.similarityThreshold);
  const chunks = reciprocalRankFusion([similar, byText], options.ranking.fusionK).slice(0, options.chunkTopK);
  return { ...EMPTY_RETRIEVAL, chunks };
}
