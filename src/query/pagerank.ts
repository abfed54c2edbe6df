/** Undirected weighted graph as neighbour maps: node -> (neighbour -> edge weight). */
export type Adjacency = Map<string, Map<string, number>>;

/** Probability of following an edge rather than restarting (PageRank's 0.85, also fast-graphrag's). */
export const DAMPING = 0.85;

export interface PageRankOptions {
  /** Probability of following an edge rather than jumping back to a seed. */
  damping?: number;
  maxIterations?: number;
  /** Stop once the scores move less than this (L1) in one iteration. */
  tolerance?: number;
}

export function addEdge(adjacency: Adjacency, a: string, b: string, weight: number): void {
  if (a === b || !(weight > 0)) return;
  const ofA = neighbours(adjacency, a);
  const ofB = neighbours(adjacency, b);
  ofA.set(b, (ofA.get(b) ?? 0) + weight);
  ofB.set(a, (ofB.get(a) ?? 0) + weight);
}

function neighbours(adjacency: Adjacency, node: string): Map<string, number> {
  let map = adjacency.get(node);
  if (!map) {
    map = new Map();
    adjacency.set(node, map);
  }
  return map;
}

/**
 * Personalised PageRank by power iteration: a random walk that follows edges in proportion to
 * their weight and, with probability 1 - damping, restarts at a seed chosen by seed weight. The
 * stationary scores measure how reachable each node is from what the question is about, so a
 * node two hops away (the bridge of a multi-hop question) still scores. Mass reaching a node with
 * no edges returns to the seeds. Scores sum to 1.
 */
export function personalizedPageRank(
  adjacency: Adjacency,
  seeds: Map<string, number>,
  options: PageRankOptions = {},
): Map<string, number> {
  const damping = options.damping ?? DAMPING;
  const maxIterations = options.maxIterations ?? 50;
  const tolerance = options.tolerance ?? 1e-6;
  const restart = normalise(seeds);
  if (restart.size === 0) return new Map();

  const strength = nodeStrengths(adjacency);

  let scores = new Map(restart);
  for (let i = 0; i < maxIterations; i++) {
    const next = new Map<string, number>();
    let stranded = 0;
    for (const [node, score] of scores) {
      const edges = adjacency.get(node);
      const total = strength.get(node) ?? 0;
      if (!edges || total === 0) {
        stranded += score;
        continue;
      }
      for (const [other, w] of edges) {
        next.set(other, (next.get(other) ?? 0) + (damping * score * w) / total);
      }
    }
    const jump = 1 - damping + damping * stranded;
    for (const [seed, p] of restart) next.set(seed, (next.get(seed) ?? 0) + jump * p);
    const change = l1Distance(scores, next);
    scores = next;
    if (change < tolerance) break;
  }
  return scores;
}

/** Sum of edge weights at each node: the denominator of a weighted random-walk step. */
export function nodeStrengths(adjacency: Adjacency): Map<string, number> {
  const strength = new Map<string, number>();
  for (const [node, edges] of adjacency) {
    let sum = 0;
    for (const w of edges.values()) sum += w;
    strength.set(node, sum);
  }
  return strength;
}

function normalise(weights: Map<string, number>): Map<string, number> {
  let total = 0;
  for (const w of weights.values()) if (w > 0) total += w;
  const out = new Map<string, number>();
  if (total === 0) return out;
  for (const [k, w] of weights) if (w > 0) out.set(k, w / total);
  return out;
}

function l1Distance(a: Map<string, number>, b: Map<string, number>): number {
  let sum = 0;
  for (const [k, v] of b) sum += Math.abs(v - (a.get(k) ?? 0));
  for (const [k, v] of a) if (!b.has(k)) sum += Math.abs(v);
  return sum;
}
