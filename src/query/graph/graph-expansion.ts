import type { RankingConfig } from "../../config.js";
import type { ScoredId } from "../../types.js";
import type { GraphRanking } from "../options.js";
import { rankByDegree } from "./degree-ranking.js";
import { rankByPageRank } from "./pagerank-ranking.js";
import type { QueryGraph } from "./query-graph.js";

/** Where graph retrieval starts: entities (and, in global mode, relationships) matched to the question. */
export interface Seeds {
  /** Entity key -> seed weight (> 0): similarity to the question times specificity. */
  entities: Map<string, number>;
  /** Relationships matched directly, best first, scored by rank fusion of vector and BM25 (global mode). */
  relationships: ScoredId[];
}

/** What a graph walk ranks: entity keys, relationship keys and chunk ids, each best first. */
export interface GraphHits {
  entities: ScoredId[];
  relationships: ScoredId[];
  chunks: ScoredId[];
}

export interface ExpansionLimits {
  topK: number;
  chunkTopK: number;
  /** config query.ranking; its defaults when left out. */
  ranking?: RankingConfig;
}

export const EMPTY_HITS: GraphHits = { entities: [], relationships: [], chunks: [] };

export async function expandSeeds(
  graph: QueryGraph,
  seeds: Seeds,
  ranking: GraphRanking,
  limits: ExpansionLimits,
): Promise<GraphHits> {
  if (seeds.entities.size === 0 && seeds.relationships.length === 0) return EMPTY_HITS;
  return ranking === "ppr" ? rankByPageRank(graph, seeds, limits) : rankByDegree(graph, seeds, limits);
}

/** Top n of a score map, best first. */
export function topScores(scores: Map<string, number>, n: number): ScoredId[] {
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, n);
}

export function addScore(scores: Map<string, number>, id: string, by: number): void {
  scores.set(id, (scores.get(id) ?? 0) + by);
}
