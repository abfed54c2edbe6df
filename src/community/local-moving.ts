import type { ProjectedGraph } from "./project-graph.js";

/**
 * A weighted undirected graph over the indices 0..size-1, as seeded Louvain works on it: a
 * self-loop (`to` equal to its node, listed once) holds the weight inside an aggregated node.
 */
export interface IndexedGraph {
  size: number;
  neighbours: { to: number; weight: number }[][];
  /** Weighted degree of each node; a self-loop counts twice, as in modularity. */
  strength: Float64Array;
  /** Sum of all edge weights, each edge once (m). */
  totalWeight: number;
}

/** The graph's nodes in its (sorted) order, with their indices. */
export function indexedGraph(graph: ProjectedGraph, keys: readonly string[]): IndexedGraph {
  const index = new Map(keys.map((key, i) => [key, i]));
  const neighbours = keys.map((key) => {
    const list: { to: number; weight: number }[] = [];
    graph.forEachNeighbor(key, (neighbour) => {
      const to = index.get(neighbour);
      if (to !== undefined) list.push({ to, weight: graph.getEdgeAttribute(key, neighbour, "weight") });
    });
    return list;
  });
  return withStrengths(neighbours);
}

function withStrengths(neighbours: { to: number; weight: number }[][]): IndexedGraph {
  const strength = new Float64Array(neighbours.length);
  let doubled = 0;
  neighbours.forEach((list, node) => {
    for (const { to, weight } of list) {
      const counted = to === node ? 2 * weight : weight;
      strength[node] = (strength[node] ?? 0) + counted;
      doubled += counted;
    }
  });
  return { size: neighbours.length, neighbours, strength, totalWeight: doubled / 2 };
}

/**
 * Louvain started from a given partition, as Neo4j GDS's `seedProperty` does: local moving from
 * `seed` (community numbers per node), then the usual aggregate-and-move levels until no move
 * gains. On the first level only the `active` nodes are visited, and a node that moves activates
 * its neighbours (the dynamic frontier of incremental Louvain): nodes far from a change stay where
 * the seed put them. Deterministic: nodes are visited in index order, ties keep the current
 * community, then the first community met. Returns the community number of every node.
 */
export function seededLouvain(graph: IndexedGraph, seed: ArrayLike<number>, active: boolean[]): Int32Array {
  let level = graph;
  let labels = renumbered(seed);
  let visit = [...active];
  const membership = Int32Array.from({ length: graph.size }, (_, i) => i);
  for (;;) {
    moveNodes(level, labels, visit);
    labels = renumbered(labels);
    for (let node = 0; node < membership.length; node++) {
      membership[node] = labels[membership[node] as number] as number;
    }
    const communities = countOf(labels);
    if (communities === level.size) return membership;
    level = aggregated(level, labels, communities);
    labels = Int32Array.from({ length: communities }, (_, i) => i);
    visit = new Array<boolean>(communities).fill(true);
  }
}

/** Moves nodes to the neighbouring community with the best modularity gain until none gains. */
function moveNodes(graph: IndexedGraph, labels: Int32Array, active: boolean[]): void {
  const twiceM = 2 * graph.totalWeight;
  if (twiceM === 0) return;
  const total = new Float64Array(graph.size);
  for (let node = 0; node < graph.size; node++) {
    total[labels[node] as number] = (total[labels[node] as number] ?? 0) + (graph.strength[node] as number);
  }
  let pending = active.filter(Boolean).length;
  while (pending > 0) {
    for (let node = 0; node < graph.size && pending > 0; node++) {
      if (!active[node]) continue;
      active[node] = false;
      pending -= 1;
      const target = bestCommunity(graph, labels, total, node, twiceM);
      const current = labels[node] as number;
      if (target === current) continue;
      const strength = graph.strength[node] as number;
      total[current] = (total[current] ?? 0) - strength;
      total[target] = (total[target] ?? 0) + strength;
      labels[node] = target;
      for (const { to } of graph.neighbours[node] ?? []) {
        if (to !== node && !active[to] && labels[to] !== target) {
          active[to] = true;
          pending += 1;
        }
      }
    }
  }
}

/**
 * The community where `node` gains most: gain(c) = w(node, c) - k(node) * total(c) / 2m, with
 * `node` taken out of its own community first. Another community must beat staying by a margin
 * (rounding must not move a node back and forth).
 */
function bestCommunity(
  graph: IndexedGraph,
  labels: Int32Array,
  total: Float64Array,
  node: number,
  twiceM: number,
): number {
  const current = labels[node] as number;
  const strength = graph.strength[node] as number;
  const links = new Map<number, number>([[current, 0]]);
  for (const { to, weight } of graph.neighbours[node] ?? []) {
    if (to === node) continue;
    const community = labels[to] as number;
    links.set(community, (links.get(community) ?? 0) + weight);
  }
  const gain = (community: number, linked: number) => {
    const others = (total[community] ?? 0) - (community === current ? strength : 0);
    return linked - (strength * others) / twiceM;
  };
  let best = current;
  let bestGain = gain(current, links.get(current) ?? 0) + MIN_GAIN * (strength || 1);
  for (const [community, linked] of links) {
    if (community === current) continue;
    const candidate = gain(community, linked);
    if (candidate > bestGain) {
      best = community;
      bestGain = candidate;
    }
  }
  return best;
}

/** Relative margin a move must gain by (see bestCommunity). */
const MIN_GAIN = 1e-10;

/** Community numbers 0..k-1 in the order the nodes first name them. */
function renumbered(labels: ArrayLike<number>): Int32Array {
  const numbers = new Map<number, number>();
  const out = new Int32Array(labels.length);
  for (let node = 0; node < labels.length; node++) {
    const label = labels[node] as number;
    let number = numbers.get(label);
    if (number === undefined) {
      number = numbers.size;
      numbers.set(label, number);
    }
    out[node] = number;
  }
  return out;
}

function countOf(labels: Int32Array): number {
  return labels.reduce((max, label) => Math.max(max, label + 1), 0);
}

/** One node per community; edges between communities summed, edges inside them as a self-loop. */
function aggregated(graph: IndexedGraph, labels: Int32Array, communities: number): IndexedGraph {
  const weights = Array.from({ length: communities }, () => new Map<number, number>());
  for (let node = 0; node < graph.size; node++) {
    const from = labels[node] as number;
    for (const { to, weight } of graph.neighbours[node] ?? []) {
      const target = labels[to] as number;
      // An edge between two nodes is listed at both ends; inside a community that counts it twice.
      const share = from === target && to !== node ? weight / 2 : weight;
      const row = weights[from] as Map<number, number>;
      row.set(target, (row.get(target) ?? 0) + share);
    }
  }
  return withStrengths(weights.map((row) => [...row].map(([to, weight]) => ({ to, weight }))));
}

/** Newman's modularity of a partition of the graph (0 for a graph without edges). */
export function modularity(graph: IndexedGraph, labels: ArrayLike<number>): number {
  const twiceM = 2 * graph.totalWeight;
  if (twiceM === 0) return 0;
  const inside = new Map<number, number>();
  const total = new Map<number, number>();
  for (let node = 0; node < graph.size; node++) {
    const community = labels[node] as number;
    total.set(community, (total.get(community) ?? 0) + (graph.strength[node] as number));
    for (const { to, weight } of graph.neighbours[node] ?? []) {
      if (labels[to] !== community) continue;
      inside.set(community, (inside.get(community) ?? 0) + (to === node ? 2 * weight : weight));
    }
  }
  let q = 0;
  for (const [community, degree] of total) {
    q += (inside.get(community) ?? 0) / twiceM - (degree / twiceM) ** 2;
  }
  return q;
}

/**
 * Splits every community into its connected parts: a community that lost the node joining its
 * halves is two. Never lowers modularity (no edge joins the parts; their degree sums square smaller).
 */
export function connectedParts(graph: IndexedGraph, labels: ArrayLike<number>): Int32Array {
  const parts = new Int32Array(graph.size).fill(-1);
  let next = 0;
  for (let start = 0; start < graph.size; start++) {
    if ((parts[start] as number) >= 0) continue;
    parts[start] = next;
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      for (const { to } of graph.neighbours[queue[i] as number] ?? []) {
        if ((parts[to] as number) >= 0 || labels[to] !== labels[start]) continue;
        parts[to] = next;
        queue.push(to);
      }
    }
    next += 1;
  }
  return parts;
}
