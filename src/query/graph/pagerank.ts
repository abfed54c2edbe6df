/** Undirected weighted graph as neighbour maps: node -> (neighbour -> edge weight). */
export type Adjacency = Map<string, Map<string, number>>;

/** Probability of following an edge rather than restarting (PageRank's classic 0.85). */
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

/** The graph in compressed sparse rows with each row's weights already divided by its strength. */
interface TransitionMatrix {
  nodes: string[];
  offsets: Int32Array;
  targets: Int32Array;
  probabilities: Float64Array;
}

function transitionMatrix(adjacency: Adjacency, extraNodes: Iterable<string>): TransitionMatrix {
  const nodes = [...new Set([...adjacency.keys(), ...extraNodes])];
  const index = new Map(nodes.map((n, i) => [n, i]));
  const offsets = new Int32Array(nodes.length + 1);
  nodes.forEach((n, i) => {
    offsets[i + 1] = (offsets[i] as number) + (adjacency.get(n)?.size ?? 0);
  });
  const targets = new Int32Array(offsets[nodes.length] as number);
  const probabilities = new Float64Array(targets.length);
  nodes.forEach((n, i) => {
    const edges = adjacency.get(n);
    if (!edges) return;
    let strength = 0;
    for (const w of edges.values()) strength += w;
    let at = offsets[i] as number;
    for (const [other, w] of edges) {
      targets[at] = index.get(other) as number;
      probabilities[at] = w / strength;
      at += 1;
    }
  });
  return { nodes, offsets, targets, probabilities };
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
  const positive = [...seeds].filter(([, w]) => w > 0);
  const total = positive.reduce((sum, [, w]) => sum + w, 0);
  if (total === 0) return new Map();

  const { nodes, offsets, targets, probabilities } = transitionMatrix(
    adjacency,
    positive.map(([n]) => n),
  );
  const index = new Map(nodes.map((n, i) => [n, i]));
  const restart = new Float64Array(nodes.length);
  for (const [n, w] of positive) restart[index.get(n) as number] = w / total;

  let scores = Float64Array.from(restart);
  let next = new Float64Array(nodes.length);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    next.fill(0);
    let stranded = 0;
    for (let i = 0; i < nodes.length; i++) {
      const score = scores[i] as number;
      if (score === 0) continue;
      const start = offsets[i] as number;
      const end = offsets[i + 1] as number;
      if (start === end) {
        stranded += score;
        continue;
      }
      for (let e = start; e < end; e++) {
        const t = targets[e] as number;
        next[t] = (next[t] as number) + damping * score * (probabilities[e] as number);
      }
    }
    const jump = 1 - damping + damping * stranded;
    let change = 0;
    for (let i = 0; i < nodes.length; i++) {
      const value = (next[i] as number) + jump * (restart[i] as number);
      next[i] = value;
      change += Math.abs(value - (scores[i] as number));
    }
    [scores, next] = [next, scores];
    if (change < tolerance) break;
  }
  const out = new Map<string, number>();
  nodes.forEach((n, i) => {
    if ((scores[i] as number) > 0) out.set(n, scores[i] as number);
  });
  return out;
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
