import type { KgragServices } from "../../services.js";
import type { GraphHits } from "../graph/graph-expansion.js";
import type { QueryGraph } from "../graph/query-graph.js";
import type { QueryKeywords } from "../keywords.js";
import type { QueryMode, ResolvedQueryOptions } from "../options.js";
import type { ContextCommunity } from "../result.js";

/** Everything a retrieval mode reads; built once per query. */
export interface RetrievalInput {
  services: KgragServices;
  graph: QueryGraph;
  question: string;
  keywords: QueryKeywords;
  options: ResolvedQueryOptions;
  /** Query embeddings by text, computed in one embedder call (see queryTexts). */
  vectors: Map<string, number[]>;
}

/** What a mode found, each list best first; context.ts turns it into the budgeted context. */
export interface Retrieval extends GraphHits {
  communities: ContextCommunity[];
  /** A model's map-reduce answer over the community reports (global mode with an LLM). */
  communityAnalysis: string | null;
  /** What the caller should know about the retrieval (the result's `warnings`). */
  warnings?: string[];
}

export const EMPTY_RETRIEVAL: Retrieval = {
  entities: [],
  relationships: [],
  chunks: [],
  communities: [],
  communityAnalysis: null,
};

/** The keywords that name what local retrieval links to entities; one level falls back to the other. */
export function localKeywords(question: string, keywords: QueryKeywords): string[] {
  if (keywords.low.length) return keywords.low;
  return keywords.high.length ? keywords.high : [question.trim()];
}

/** The high-level keywords of global retrieval, falling back to the low-level ones. */
export function globalKeywords(question: string, keywords: QueryKeywords): string[] {
  if (keywords.high.length) return keywords.high;
  return keywords.low.length ? keywords.low : [question.trim()];
}

/**
 * Every text a mode embeds, so the engine embeds them in one call: the question (naive's passage
 * search, and the community reports' ranking of every mode that reads reports: global, hybrid and
 * mix); local the joined low-level keywords (vector neighbours) and each keyword (to link it);
 * global the joined high-level keywords.
 */
export function queryTexts(question: string, keywords: QueryKeywords, mode: QueryMode): string[] {
  const texts = new Set<string>();
  if (mode !== "local") texts.add(question);
  if (mode !== "naive" && mode !== "global") {
    const local = localKeywords(question, keywords);
    texts.add(local.join(", "));
    for (const k of local) texts.add(k);
  }
  if (mode !== "naive" && mode !== "local") texts.add(globalKeywords(question, keywords).join(", "));
  return [...texts];
}

export function vectorFor(input: RetrievalInput, text: string): number[] {
  const vector = input.vectors.get(text);
  if (!vector) throw new Error(`No query embedding computed for ${JSON.stringify(text)}`);
  return vector;
}

/** Candidates fetched from each index before fusion; never fewer than the chunks finally kept. */
export function candidateDepth(options: ResolvedQueryOptions): number {
  return Math.max(options.topK, options.chunkTopK);
}
