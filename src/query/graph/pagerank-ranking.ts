import { RankingSchema } from "../../config.js";
import type { GraphEdge, WalkAdjacency } from "../../storage/graph-store.js";
import { uniqueEdges } from "./edge-union.js";
import {
  addScore,
  type ExpansionLimits,
  type GraphHits,
  type Seeds,
  topIndices,
  topScores,
  topScoresOf,
} from "./graph-expansion.js";
import { OrdinalMarks } from "./ordinal-marks.js";
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
  const positiveSeeds = [...restart].filter(([, weight]) => weight > 0).map(([key]) => key);
  const expand = { restart, positiveSeeds, share: expandedSeedShare, frontierSize: limits.topK };
  const adjacency = graph.walkAdjacency();
  const { walk, edgeKey, edgeWeights } = adjacency
    ? numberedNeighbourhood(adjacency, expand)
    : await edgeNeighbourhood(graph, expand);
  const rank = personalizedPageRank(walk, restart, { damping });
  const flows = edgeFlows(walk, edgeWeights, rank, damping);
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
    relationships: topIndices(flows, limits.topK).map((i) => ({ id: edgeKey(i), score: flows[i] as number })),
    chunks: topScores(chunkScores, limits.chunkTopK),
  };
}

/** What the walk's neighbourhood is grown from. */
interface Expansion {
  restart: Map<string, number>;
  positiveSeeds: string[];
  /** query.ranking.expandedSeedShare */
  share: number;
  /** How many neighbours of the seeds have their own edges loaded (the second hop). */
  frontierSize: number;
}

/** The walk's graph, and the key and weight of each of the edges it was built from, in order. */
interface Neighbourhood {
  walk: WalkGraph;
  /** The key of the i-th edge (asked only for the ranked few). */
  edgeKey: (i: number) => string;
  edgeWeights: ArrayLike<number>;
}

/**
 * The seeds' edges, then those of the second-hop frontier, each once, as edge objects read
 * through the query's graph (stores without a numbered graph, and scoped queries).
 */
async function edgeNeighbourhood(graph: QueryGraph, expand: Expansion): Promise<Neighbourhood> {
  const { restart, share, frontierSize } = expand;
  const firstHop = await graph.edgesOf(expandedSeeds(restart, share));
  const flow = oneStepFlow(
    firstHop.map((e) => e.sourceKey),
    firstHop.map((e) => e.targetKey),
    firstHop.map((e) => e.weight),
    restart,
  );
  const degree = flow.size === 0 ? new Map<string, number>() : await graph.store.degrees([...flow.keys()]);
  const frontier = secondHopFrontier(flow, (key) => degree.get(key) ?? 1, frontierSize);
  const secondHop = await graph.edgesOf(frontier);
  const edges = uniqueEdges([firstHop, secondHop]);
  return {
    walk: WalkGraph.fromEdges(edges, expand.positiveSeeds),
    edgeKey: (i) => (edges[i] as GraphEdge).key,
    edgeWeights: edges.map((e) => e.weight),
  };
}

/**
 * edgeNeighbourhood over the store's numbered graph: the same edges in the same order, found in
 * typed arrays by ordinal, with no edge object or text key touched until the ranked few.
 */
function numberedNeighbourhood(adjacency: WalkAdjacency, expand: Expansion): Neighbourhood {
  const { restart, share, frontierSize } = expand;
  const { entityNumbers, edgeKeys, edgeSources, edgeTargets, edgeWeights, rowOffsets } = adjacency;
  // An entity without an ordinal has no edge: it restarts the walk but is never an edge's end.
  const restartByNumber = new Map<number, number>();
  for (const [key, weight] of restart) {
    const n = entityNumbers.get(key);
    if (n !== undefined) restartByNumber.set(n, weight);
  }
  const expanded = expandedSeeds(restart, share).flatMap((key) => entityNumbers.get(key) ?? []);
  const firstHop = unionOfRows(adjacency, expanded, []);
  const flow = oneStepFlow(
    firstHop.map((e) => edgeSources[e] as number),
    firstHop.map((e) => edgeTargets[e] as number),
    firstHop.map((e) => edgeWeights[e] as number),
    restartByNumber,
  );
  const degree = (n: number) => (rowOffsets[n + 1] as number) - (rowOffsets[n] as number);
  const frontier = secondHopFrontier(flow, degree, frontierSize);
  const edges = unionOfRows(adjacency, frontier, firstHop);
  return {
    walk: WalkGraph.fromNumberedEdges(adjacency, edges, expand.positiveSeeds),
    edgeKey: (i) => edgeKeys[edges[i] as number] as string,
    edgeWeights: edges.map((e) => edgeWeights[e] as number),
  };
}

const seenEdgeNumbers = new OrdinalMarks();

/** `before`, then the edges in the entities' rows not in it yet, each once, in row order. */
function unionOfRows(adjacency: WalkAdjacency, entities: number[], before: number[]): number[] {
  const { rowOffsets, rowEdges } = adjacency;
  seenEdgeNumbers.startPass();
  const out = [...before];
  for (const edge of before) seenEdgeNumbers.set(edge, 1);
  for (const n of entities) {
    const end = rowOffsets[n + 1] as number;
    for (let at = rowOffsets[n] as number; at < end; at++) {
      const edge = rowEdges[at] as number;
      if (seenEdgeNumbers.get(edge) >= 0) continue;
      seenEdgeNumbers.set(edge, 1);
      out.push(edge);
    }
  }
  return out;
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
function secondHopFrontier<K>(flow: Map<K, number>, degree: (entity: K) => number, size: number): K[] {
  if (flow.size === 0) return [];
  const keys = [...flow.keys()];
  const perEdge = Float64Array.from(flow, ([key, mass]) => mass / Math.max(1, degree(key)));
  return topIndices(perEdge, size).map((i) => keys[i] as K);
}

/** Mass each non-seed neighbour receives in one weighted step from the seeds (edge i joins sources[i] and targets[i]). */
function oneStepFlow<K>(
  sources: K[],
  targets: K[],
  weights: number[],
  restart: Map<K, number>,
): Map<K, number> {
  const strength = new Map<K, number>();
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i] as K;
    const target = targets[i] as K;
    if (restart.has(source)) addScore(strength, source, weights[i] as number);
    if (restart.has(target)) addScore(strength, target, weights[i] as number);
  }
  const flow = new Map<K, number>();
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i] as K;
    const target = targets[i] as K;
    passOn(flow, restart, strength, source, target, weights[i] as number);
    passOn(flow, restart, strength, target, source, weights[i] as number);
  }
  return flow;
}

/** A seed's share of its mass over one of its edges, to a neighbour that is not a seed. */
function passOn<K>(
  flow: Map<K, number>,
  restart: Map<K, number>,
  strength: Map<K, number>,
  from: K,
  to: K,
  weight: number,
): void {
  const seed = restart.get(from);
  if (seed === undefined) return;
  const total = strength.get(from);
  if (!total || restart.has(to)) return;
  addScore(flow, to, (seed * weight) / total);
}

/** Probability mass the walk moves across each relationship per step, in both directions (edges as given to the walk's graph, by their weights). */
function edgeFlows(
  walk: WalkGraph,
  weights: ArrayLike<number>,
  rank: Float64Array,
  damping: number,
): Float64Array {
  const { sources, targets } = walk.edgeEnds;
  const flows = new Float64Array(weights.length);
  const towards = (id: number, weight: number): number => {
    if (id < 0) return 0;
    const total = walk.strength[id] as number;
    return total ? (damping * (rank[id] as number) * weight) / total : 0;
  };
  for (let i = 0; i < weights.length; i++) {
    const weight = weights[i] as number;
    // 0 + a + b: the sum in the order the flow was always added up in.
    flows[i] = 0 + towards(sources[i] as number, weight) + towards(targets[i] as number, weight);
  }
  return flows;
}

/**
 * An entity passes its score to the chunks that mention it in equal shares, so hubs mentioned
 * everywhere add little to each; its home passages (see subjects.ts) share its whole score instead.
 */
function spread(
  scores: Map<string, number>,
  chunkIds: string[],
  score: number,
  home?: ReadonlySet<string>,
): void {
  if (chunkIds.length === 0 || score <= 0) return;
  const homeIds = home ? chunkIds.filter((id) => home.has(id)) : [];
  for (const id of chunkIds) addScore(scores, id, score / chunkIds.length);
  for (const id of homeIds) addScore(scores, id, score / homeIds.length);
}
