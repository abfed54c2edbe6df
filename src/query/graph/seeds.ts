import { entityKey } from "../../merge/keys.js";
import type { ScoredId } from "../../types.js";
import { normalizedScoreFusion, weightedReciprocalRankFusion } from "../fusion.js";
import { denseWeight } from "../modes/naive.js";
import { localKeywords, type RetrievalInput, vectorFor } from "../modes/retrieval.js";
import { topScores } from "./graph-expansion.js";
import { entitySpecificity } from "./specificity.js";

/** Cosine similarity of an exact name match: nothing is more similar to a keyword than its own entity. */
const EXACT_MATCH = 1;

/**
 * The entities the question names, found by linking each low-level keyword to its best-matching
 * entity (as fast-graphrag links query entities): its exact name if the graph has it, else the most
 * similar candidate among the vector neighbours of all keywords and the full-text matches of this
 * one, if that similarity clears the threshold. Linking keeps one seed per keyword: the dozens of
 * loose neighbours a plain vector search returns would each pull the walk somewhere else.
 * A seed weighs its similarity times its specificity, so a question's rare names lead and its
 * generic nouns ("city", "film") barely count.
 */
export async function entitySeeds(input: RetrievalInput): Promise<Map<string, number>> {
  const { graph, options } = input;
  const { store } = input.services;
  const keywords = localKeywords(input.question, input.keywords);
  const exact = new Set((await graph.entities(keywords.map(entityKey))).map((e) => e.key));
  // The vector neighbours of all keywords serve only keywords without an exact match; searching
  // every entity vector is the costly step, so it runs only when one needs it.
  let shared: string[] | undefined;
  const links = new Map<string, number>();
  for (const keyword of keywords) {
    const key = entityKey(keyword);
    if (exact.has(key)) {
      links.set(key, EXACT_MATCH);
      continue;
    }
    shared ??= await vectorNeighbours(input, keywords);
    const candidates = new Set([...shared, ...(await fullTextMatches(input, keyword))]);
    if (candidates.size === 0) continue;
    const [best] = await store.searchVectors("entities", vectorFor(input, keyword), 1, candidates);
    if (best && best.score >= options.similarityThreshold) {
      links.set(best.id, Math.max(links.get(best.id) ?? 0, best.score));
    }
  }
  const idf = await entitySpecificity(graph, [...links.keys()]);
  const weighted = new Map([...links].map(([key, similarity]) => [key, similarity * (idf.get(key) ?? 0)]));
  return new Map(topScores(weighted, options.topK).map((s) => [s.id, s.score]));
}

async function vectorNeighbours(input: RetrievalInput, keywords: string[]): Promise<string[]> {
  const { graph, options } = input;
  const joined = vectorFor(input, keywords.join(", "));
  const hits = await input.services.store.searchVectors(
    "entities",
    joined,
    options.topK,
    graph.scope?.entityKeys,
  );
  return hits.filter((h) => h.score >= options.similarityThreshold).map((h) => h.id);
}

/**
 * Relationships matching the question (global mode): vector search on the high-level keywords
 * fused with BM25 over relationship text (both endpoints, keywords, description) on the question
 * and its keywords, weighted as naive weighs vectors and BM25 for chunks (the hashing embedder's
 * ranking counts for less). Fused by normalised score (query.ranking.relationshipSeedWeight), not
 * rank: the fused score is each endpoint's restart weight, and how far a hit's BM25 score stands
 * above the rest says how much of the question it matched.
 * Theme words alone fit every film or company in a corpus; the words the question shares with a
 * relationship (a rare name, a place, a year) tell it apart.
 */
export async function relationshipSeeds(input: RetrievalInput, keywords: string[]): Promise<ScoredId[]> {
  const { graph, options } = input;
  const { store } = input.services;
  const allow = graph.scope?.relationshipKeys;
  const fusion = input.services.config.query.fusion;
  const vectorWeight = denseWeight(input.services.embedder, fusion);
  const [byVector, byText] = await Promise.all([
    vectorWeight > 0
      ? store.searchVectors("relationships", vectorFor(input, keywords.join(", ")), options.topK, allow)
      : Promise.resolve([]),
    store.searchRelationshipText([input.question, ...keywords].join(" "), options.topK, allow),
  ]);
  const similar = byVector.filter((h) => h.score >= options.similarityThreshold);
  const { fusionK, textHitFloor, relationshipSeedWeight, relationshipSeedFloor } = options.ranking;
  const lists = [
    { items: similar, weight: vectorWeight },
    { items: substantialTextHits(byText, textHitFloor), weight: fusion.relationshipText },
  ];
  const fused =
    relationshipSeedWeight === "score"
      ? normalizedScoreFusion(lists, relationshipSeedFloor)
      : weightedReciprocalRankFusion(lists, fusionK);
  return fused.slice(0, options.topK);
}

/**
 * A BM25 hit scoring under `floor` (query.ranking.textHitFloor) of the best one matched only words
 * most relationships contain ("was", "the"): rank fusion would still give it a rank's worth of
 * weight, so it is dropped, as the similarity threshold drops weak vector hits.
 */
function substantialTextHits(hits: ScoredId[], floor: number): ScoredId[] {
  const best = hits[0]?.score ?? 0;
  return hits.filter((h) => h.score >= best * floor);
}

/** In-scope entities whose name or description matches the keyword in the full-text index. */
async function fullTextMatches(input: RetrievalInput, keyword: string): Promise<string[]> {
  const { graph, options } = input;
  // The full-text index takes no scope, so a scoped query over-fetches and filters.
  const depth = graph.scope ? options.topK * 4 : options.topK;
  const hits = await input.services.store.searchEntityText(keyword, depth);
  return hits
    .filter((h) => graph.entityAllowed(h.id))
    .slice(0, options.topK)
    .map((h) => h.id);
}
