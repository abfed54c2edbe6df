import type { FusionConfig } from "../../config.js";
import type { Embedder } from "../../embedding/embedder.js";
import type { ScoredId } from "../../types.js";
import { weightedReciprocalRankFusion } from "../fusion.js";
import {
  candidateDepth,
  EMPTY_RETRIEVAL,
  type Retrieval,
  type RetrievalInput,
  vectorFor,
} from "./retrieval.js";

/**
 * Passages only: BM25 over the chunk text fused with chunk vector search by weighted reciprocal
 * rank fusion, so exact names, codes and numbers that an embedding blurs are still found, and a
 * semantic embedder adds the paraphrases BM25 misses. The offline hashing embedder only measures
 * word overlap: its ranking pulled BM25's down on every development set, so by default it is
 * left out (query.fusion.hashingVector = 0) and naive is BM25 offline.
 */
export async function retrieveNaive(input: RetrievalInput): Promise<Retrieval> {
  const { store, embedder } = input.services;
  const { options, question } = input;
  const allow = input.graph.scope?.chunkIds;
  const depth = candidateDepth(options);
  const fusion = input.services.config.query.fusion;
  const vectorWeight = denseWeight(embedder, fusion);
  const [byVector, byText, bySentence] = await Promise.all([
    vectorWeight > 0
      ? store.searchVectors("chunks", vectorFor(input, question), depth, allow)
      : Promise.resolve([]),
    store.searchChunkText(question, depth, allow),
    sentenceMatches(input, depth),
  ]);
  const similar = byVector.filter((h) => h.score >= options.similarityThreshold);
  const chunks = weightedReciprocalRankFusion(
    [
      { items: byText, weight: fusion.text },
      { items: similar, weight: vectorWeight },
      { items: bySentence, weight: input.services.config.query.smallToBig.weight },
    ],
    options.ranking.fusionK,
  ).slice(0, options.chunkTopK);
  return { ...EMPTY_RETRIEVAL, chunks };
}

/**
 * Small-to-Big (query.smallToBig): the chunks ranked by their best-matching sentence, when it is
 * on and the store indexes sentences; none otherwise.
 */
async function sentenceMatches(input: RetrievalInput, depth: number): Promise<ScoredId[]> {
  const { store, config } = input.services;
  if (!config.query.smallToBig.enabled || !store.searchChunkUnits) return [];
  return store.searchChunkUnits(input.question, depth, input.graph.scope?.chunkIds);
}

/** How much the dense ranking counts: fully for a semantic embedder, less for the lexical hashing one. */
export function denseWeight(embedder: Pick<Embedder, "kind">, fusion: FusionConfig): number {
  return embedder.kind === "hashing" ? fusion.hashingVector : fusion.vector;
}
