import { splitRelationshipKey } from "../../merge/keys.js";
import type { ScoredId } from "../../types.js";
import { communityContext } from "../communities/community-context.js";
import { expandSeeds } from "../graph/graph-expansion.js";
import { relationshipSeeds } from "../graph/seeds.js";
import {
  EMPTY_RETRIEVAL,
  globalKeywords,
  type Retrieval,
  type RetrievalInput,
  vectorFor,
} from "./retrieval.js";

/**
 * Themes across the corpus: high-level keywords -> relationships whose keywords and descriptions
 * match -> their endpoint entities -> graph expansion -> source chunks; plus, once communities
 * exist, the community reports most relevant to the question.
 */
export async function retrieveGlobal(input: RetrievalInput): Promise<Retrieval> {
  const { options } = input;
  const matched = await matchedRelationships(input);
  const [hits, reports] = await Promise.all([
    expandSeeds(input.graph, { entities: new Map(), relationships: matched }, options.graphRanking, options),
    // The full map-reduce over reports is for global questions proper, and only when an answer is wanted.
    communityContext(input, options.mode === "global" && !options.contextOnly),
  ]);
  return {
    ...EMPTY_RETRIEVAL,
    ...hits,
    communities: reports.communities,
    communityAnalysis: reports.analysis,
  };
}

/**
 * Global's findings without its graph walk: the matched relationships, their endpoint entities
 * (each scored by its best relationship) and the relevant reports. Mix uses this because it never
 * cites global's passages (see mix.ts), so the walk that ranks them would be wasted work.
 */
export async function retrieveThemes(input: RetrievalInput): Promise<Retrieval> {
  const [matched, reports] = await Promise.all([matchedRelationships(input), communityContext(input, false)]);
  const relationships = matched.slice(0, input.options.topK);
  const endpoints = new Map<string, number>();
  for (const { id, score } of relationships) {
    for (const key of splitRelationshipKey(id)) endpoints.set(key, Math.max(endpoints.get(key) ?? 0, score));
  }
  const entities = [...endpoints]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, input.options.topK);
  return { ...EMPTY_RETRIEVAL, entities, relationships, communities: reports.communities };
}

/** The relationships matching the question's high-level keywords, best first. */
export function matchedRelationships(input: RetrievalInput): Promise<ScoredId[]> {
  const text = globalKeywords(input.question, input.keywords).join(", ");
  return relationshipSeeds(input, vectorFor(input, text));
}
