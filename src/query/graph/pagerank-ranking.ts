import { RankingSchema } from "../../config.js";
import type { GraphEdge } from "../../storage/graph-store.js";
import { uniqueEdges } from "./edge-union.js";
import {
  addScore,
  type ExpansionLimits,
  type GraphHits,
  type Seeds,
  topScores,
  topScoresOf,
} from "./graph-expansion.js";
import { personalizedPageRank, WalkGraph } from "./pagerank.js";
import type { QueryGraph } from "./query-graph.js";
import { entitySpecificity } from "./specificity.js";
import { homeChunks } from "./subjects.js";

/**
 * Damping (config query.ranking.pagerankDamping, 0.5): the probability that the walk follows an
 * edge rather than returning to a seed. At 0.5 a walk takes one step on average (d / (1 - d)) and
 * reaches two hops a quarter of the time: enough for the bridge of a two-hop question while the
 * seeds stay on top. PageRank's 0.85 walks ~6 steps and drifts into whatever dense cluster is
 * near. HippoRAG uses 0.5 for multi-hop retrieval too.
 *
 * Seeds whose restart weight is under query.ranking.expandedSeedShare (0.01) of the strongest
 * seed's are not expanded: a hub endpoint of a matched relationship (weighted 1 / its thousands
 * of chunks) would load thousands of edges, each carrying too little mass to rank. It still
 * restarts the walk and scores itself.
 */
const RANKING_DEFAULTS = RankingSchema.parse({});

/**
 * Personalised PageRank over the seeds' two-hop neighbourhood (as in fast-graphrag and HippoRAG):
 * the walk restarts at the seeds in proportion to their weight (how well they match the question).
 * Its scores then take one more step, from entities to the relationships they take part in and to
 * the chunks that mention them. An entity the question never names, but that its entities lead to, collects
 * mass, and so does its passage: the second hop of a multi-hop question.
 */
export async function rankByPageRank(
  graph: QueryGraph,
  seeds: Seeds,
  limits: ExpansionLimits,
): Promise<GraphHits> {
  const { pagerankDamping: damping, expandedSeedShare } = limits.ranking ?? RANKING_DEFAULTS;
  const restart = await restartWeights(graph, seeds);
  const firstHop = await graph.edgesOf(expandedSeeds(restart, expandedSeedShare));
  const frontier = await secondHopFrontier(graph, oneStepFlow(firstHop, restart), limits.topK);
  const secondHop = await graph.edgesOf(frontier);
  const edges = uniqueEdges([firstHop, secondHop]);

  const positiveSeeds = [...restart].filter(([, weight]) => weight > 0).map(([key]) => key);
  const walk = WalkGraph.fromEdges(edges, positiveSeeds);
  const rank = personalizedPageRank(walk, restart, { damping });
  const flows = edgeFlows(walk, edges, rank, damping);
  const entities = topScoresOf(walk.nodes, rank, limits.topK, (score) => score > 0);

  // Chunks are scored from entities only: every relationship's chunk also mentions its endpoints,
  // and summing edges would favour chunks that merely name many things together.
  const chunkScores = new Map<string, number>();
  const homes = await homeChunks(
    graph,
    entities.map((e) => e.id),
  );
  for (const entity of await graph.entities(entities.map((e) => e.id))) {
    spread(chunkScores, graph.chunkIdsOf(entity), walk.scoreOf(rank, entity.key), homes.get(entity.key));
  }
  return {
    entities,
    relationships: topScoresOf(
      edges.map((rel) => rel.key),
      flows,
      limits.topK,
    ),
    chunks: topScores(chunkScores, limits.chunkTopK),
  };
}

/**
 * Seed entities, plus the endpoints of directly matched relationships sharing their match score
 * (weighted by specificity like entity seeds).
 */
async function restartWeights(graph: QueryGraph, seeds: Seeds): Promise<Map<string, number>> {
  const restart = new Map<string, number>();
  for (const [key, weight] of seeds.entities) if (graph.entityAllowed(key)) addScore(restart, key, weight);
  if (seeds.relationships.length === 0) return restart;
  const matchScore = new Map(seeds.relationships.map((s) => [s.id, s.score]));
  const matched = await graph.relationships([...matchScore.keys()]);
  const idf = await entitySpecificity(
    graph,
    matched.flatMap((r) => [r.sourceKey, r.targetKey]),
  );
  for (const rel of matched) {
    const half = (matchScore.get(rel.key) ?? 0) / 2;
    for (const end of [rel.sourceKey, rel.targetKey]) {
      if (graph.entityAllowed(end)) addScore(restart, end, half * (idf.get(end) ?? 0));
    }
  }
  return restart;
}

function expandedSeeds(restart: Map<string, number>, share: number): string[] {
  const strongest = Math.max(0, ...restart.values());
  return [...restart].filter(([, weight]) => weight >= share * strongest).map(([key]) => key);
}

/**
 * The neighbours whose own relationships are loaded for the second hop: those that pass the most
 * mass to each of their neighbours (the mass they receive over their degree). A hub reached from
 * a seed spreads its share so thin over thousands of edges that none of them could rank, so
 * loading them would cost much and change nothing; a bridge entity with a few edges is kept.
 */
async function secondHopFrontier(
  graph: QueryGraph,
  flow: Map<string, number>,
  size: number,
): Promise<string[]> {
  if (flow.size === 0) return [];
  const degree = await graph.store.degrees([...flow.keys()]);
  const perEdge = new Map<string, number>();
  for (const [key, mass] of flow) perEdge.set(key, mass / Math.max(1, degree.get(key) ?? 1));
  return topScores(perEdge, size).map((s) => s.id);
}

/** Mass each non-seed neighbour receives in one weighted step from the seeds. */
function oneStepFlow(edges: GraphEdge[], restart: Map<string, number>): Map<string, number> {
  const strength = new Map<string, number>();
  for (const { sourceKey, targetKey, weight } of edges) {
    if (restart.has(sourceKey)) addScore(strength, sourceKey, weight);
    if (restart.has(targetKey)) addScore(strength, targetKey, weight);
  }
  const flow = new Map<string, number>();
  for (const { sourceKey, targetKey, weight } of edges) {
    passOn(flow, restart, strength, sourceKey, targetKey, weight);
    passOn(flow, restart, strength, targetKey, sourceKey, weight);
  }
  return flow;
}

/** A seed's share of its mass over one of its edges, to a neighbour that is not a seed. */
function passOn(
  flow: Map<string, number>,
  restart: Map<string, number>,
  strength: Map<string, number>,
  from: string,
  to: string,
  weight: number,
): void {
  const seed = restart.get(from);
  if (seed === undefined) return;
  const total = strength.get(from);
  if (!total || restart.has(to)) return;
  addScore(flow, to, (seed * weight) / total);
}

/** Probability mass the walk moves across each relationship per step, in both directions (edges as given to the walk's graph). */
function edgeFlows(walk: WalkGraph, edges: GraphEdge[], rank: Float64Array, damping: number): Float64Array {
  const { sources, targets } = walk.edgeEnds;
  const flows = new Float64Array(edges.length);
  const towards = (id: number, weight: number): number => {
    if (id < 0) return 0;
    const total = walk.strength[id] as number;
    return total ? (damping * (rank[id] as number) * weight) / total : 0;
  };
  edges.forEach((rel, i) => {
    // 0 + a + b: the sum in the order the flow was always added up in.
    flows[i] = 0 + towards(sources[i] as number, rel.weight) + towards(targets[i] as number, rel.weight);
  });
  return flows;
}

/**
 * An entity passes its score to the chunks that mention it in equal shares, so hubs mentioned
 * everywhere add little to each; its home passages (see subjects.ts) share its whole score instead.
 */
function spread(scores: Map<string, number>, chunkIds: string[], score: number, home?: Set<string>): void {
  if (chunkIds.length === 0 || score <= 0) return;
  const homeIds = home ? chunkIds.filter((id) => home.has(id)) : [];
  for (const id of chunkIds) addScore(scores, id, score / chunkIds.length);
  for (const id of homeIds) addScore(scores, id, score / homeIds.length);
}
