import type { WalkAdjacency } from "../../storage/graph-store.js";
import { OrdinalMarks } from "./ordinal-marks.js";

/** Probability of following an edge rather than restarting (PageRank's classic 0.85). */
export const DAMPING = 0.85;

export interface PageRankOptions {
  /** Probability of following an edge rather than jumping back to a seed. */
  damping?: number;
  maxIterations?: number;
  /** Stop once the scores move less than this (L1) in one iteration. */
  tolerance?: number;
}

/** An undirected weighted edge as the walk reads it. */
export interface WalkEdge {
  sourceKey: string;
  targetKey: string;
  weight: number;
  /** The endpoints' numbers where the store gives them (GraphEdge.ordinals): nodes found without a key lookup. */
  ordinals?: { source: number; target: number };
}

/** Node per entity ordinal, for the graph being built. */
const nodeOfOrdinal = new OrdinalMarks();

/** Pair codes stay small integers (fast map keys) while nodes are fewer than this. */
const SMALL_PAIR_CODES = 46_340;

/**
 * An undirected weighted graph numbered for one walk: nodes in the order they first appear in
 * the edges (then the extra nodes), each node's neighbours in compressed sparse rows in the order
 * their edges came, and each node's strength (the sum of its edge weights, in that order). A walk
 * over a few thousand edges ran mostly on string-keyed maps of maps; the numbering is done once.
 * Self-loops and non-positive weights are left out; two edges joining the same pair add up.
 */
export class WalkGraph {
  private constructor(
    readonly nodes: string[],
    readonly index: NodeIndex,
    readonly offsets: Int32Array,
    readonly targets: Int32Array,
    readonly weights: Float64Array,
    /** Sum of each node's edge weights; 0 for a node without edges. */
    readonly strength: Float64Array,
    /** The nodes of each given edge, in the order given (-1 for an end not in the graph). */
    readonly edgeEnds: { sources: Int32Array; targets: Int32Array },
  ) {}

  static fromEdges(edges: readonly WalkEdge[], extraNodes: Iterable<string> = []): WalkGraph {
    const index = new Map<string, number>();
    const nodes: string[] = [];
    const idOf = (key: string): number => {
      let id = index.get(key);
      if (id === undefined) {
        id = nodes.length;
        index.set(key, id);
        nodes.push(key);
      }
      return id;
    };
    nodeOfOrdinal.startPass();
    const idOfNumbered = (key: string, ordinal: number | undefined): number => {
      if (ordinal === undefined) return idOf(key);
      let id = nodeOfOrdinal.get(ordinal);
      if (id < 0) {
        id = idOf(key);
        nodeOfOrdinal.set(ordinal, id);
      }
      return id;
    };
    // Both directions of each pair, in the order the edges came.
    const from: number[] = [];
    const to: number[] = [];
    const weight: number[] = [];
    const pairs = new Map<number | string, number>();
    const sources = new Int32Array(edges.length).fill(-1);
    const targets = new Int32Array(edges.length).fill(-1);
    const leftOut: number[] = [];
    for (let i = 0; i < edges.length; i++) {
      const { sourceKey, targetKey, weight: w, ordinals } = edges[i] as WalkEdge;
      if (sourceKey === targetKey || !(w > 0)) {
        leftOut.push(i);
        continue;
      }
      const a = idOfNumbered(sourceKey, ordinals?.source);
      const b = idOfNumbered(targetKey, ordinals?.target);
      sources[i] = a;
      targets[i] = b;
      // Numbered edges join distinct pairs (see EdgeOrdinals): only others are checked for a repeated pair.
      const pair = ordinals ? undefined : pairCode(Math.min(a, b), Math.max(a, b));
      const at = pair === undefined ? undefined : pairs.get(pair);
      if (at !== undefined) {
        weight[at] = (weight[at] as number) + w;
        weight[at + 1] = (weight[at + 1] as number) + w;
        continue;
      }
      if (pair !== undefined) pairs.set(pair, from.length);
      from.push(a, b);
      to.push(b, a);
      weight.push(w, w);
    }
    const connected = nodes.length;
    for (const key of extraNodes) idOf(key);
    // A left-out edge's ends may still be nodes, through other edges or as extra nodes.
    for (const i of leftOut) {
      const { sourceKey, targetKey } = edges[i] as WalkEdge;
      sources[i] = index.get(sourceKey) ?? -1;
      targets[i] = index.get(targetKey) ?? -1;
    }
    return WalkGraph.rows(nodes, index, connected, { from, to, weight }, { sources, targets });
  }

  /**
   * fromEdges for edges given by their ordinals in a numbered graph: the same nodes, rows and
   * strengths as fromEdges over those edges' objects, read from typed arrays.
   */
  static fromNumberedEdges(
    adjacency: WalkAdjacency,
    edges: ArrayLike<number>,
    extraNodes: Iterable<string> = [],
  ): WalkGraph {
    const { entityKeys, entityNumbers, edgeSources, edgeTargets, edgeWeights } = adjacency;
    const index = new NumberedNodeIndex(entityNumbers);
    const nodes: string[] = [];
    nodeOfOrdinal.startPass();
    const idOfNumber = (n: number): number => {
      let id = nodeOfOrdinal.get(n);
      if (id < 0) {
        id = nodes.length;
        nodeOfOrdinal.set(n, id);
        index.byNumber.set(n, id);
        nodes.push(entityKeys[n] as string);
      }
      return id;
    };
    const sources = new Int32Array(edges.length).fill(-1);
    const targets = new Int32Array(edges.length).fill(-1);
    const leftOut: number[] = [];
    for (let i = 0; i < edges.length; i++) {
      const edge = edges[i] as number;
      const source = edgeSources[edge] as number;
      const target = edgeTargets[edge] as number;
      const w = edgeWeights[edge] as number;
      if (source === target || !(w > 0)) {
        leftOut.push(i);
        continue;
      }
      sources[i] = idOfNumber(source);
      targets[i] = idOfNumber(target);
    }
    const connected = nodes.length;
    for (const key of extraNodes) {
      if (index.get(key) !== undefined) continue;
      index.add(key, nodes.length);
      nodes.push(key);
    }
    const kept = numberedEntries(sources, targets, edges, edgeWeights, leftOut.length);
    for (const i of leftOut) {
      const edge = edges[i] as number;
      sources[i] = index.byNumber.get(edgeSources[edge] as number) ?? -1;
      targets[i] = index.byNumber.get(edgeTargets[edge] as number) ?? -1;
    }
    return WalkGraph.rows(nodes, index, connected, kept, { sources, targets });
  }

  /** Compressed sparse rows from the directed entries, each row in the order of its entries. */
  private static rows(
    nodes: string[],
    index: NodeIndex,
    connected: number,
    { from, to, weight }: DirectedEntries,
    edgeEnds: { sources: Int32Array; targets: Int32Array },
  ): WalkGraph {
    const offsets = new Int32Array(nodes.length + 1);
    for (let e = 0; e < from.length; e++) {
      const a = from[e] as number;
      offsets[a + 1] = (offsets[a + 1] as number) + 1;
    }
    for (let i = 0; i < connected; i++) offsets[i + 1] = (offsets[i + 1] as number) + (offsets[i] as number);
    for (let i = connected; i < nodes.length; i++) offsets[i + 1] = offsets[i] as number;
    const next = offsets.slice(0, nodes.length);
    const targets = new Int32Array(from.length);
    const weights = new Float64Array(from.length);
    for (let e = 0; e < from.length; e++) {
      const a = from[e] as number;
      const at = next[a] as number;
      next[a] = at + 1;
      targets[at] = to[e] as number;
      weights[at] = weight[e] as number;
    }
    const strength = new Float64Array(nodes.length);
    for (let i = 0; i < connected; i++) {
      let sum = 0;
      for (let e = offsets[i] as number; e < (offsets[i + 1] as number); e++) sum += weights[e] as number;
      strength[i] = sum;
    }
    return new WalkGraph(nodes, index, offsets, targets, weights, strength, edgeEnds);
  }

  /** The node's score in `scores` (aligned with nodes), 0 for a key the graph lacks. */
  scoreOf(scores: Float64Array, key: string): number {
    const id = this.index.get(key);
    return id === undefined ? 0 : (scores[id] as number);
  }

  /** The positive scores by node key, in node order. */
  scoreMap(scores: Float64Array): Map<string, number> {
    const out = new Map<string, number>();
    this.nodes.forEach((node, i) => {
      if ((scores[i] as number) > 0) out.set(node, scores[i] as number);
    });
    return out;
  }
}

/** Both directions of each kept edge, in the order the edges came: from[e] -> to[e] weighing weight[e]. */
interface DirectedEntries {
  from: ArrayLike<number>;
  to: ArrayLike<number>;
  weight: ArrayLike<number>;
}

/**
 * The directed entries of the numbered edges whose ends were numbered (sources[i] >= 0), in
 * typed arrays of their final size: lists grown entry by entry were most of what a walk allocated.
 */
function numberedEntries(
  sources: Int32Array,
  targets: Int32Array,
  edges: ArrayLike<number>,
  edgeWeights: Float64Array,
  leftOut: number,
): DirectedEntries {
  const size = 2 * (edges.length - leftOut);
  const from = new Int32Array(size);
  const to = new Int32Array(size);
  const weight = new Float64Array(size);
  let at = 0;
  for (let i = 0; i < edges.length; i++) {
    const a = sources[i] as number;
    if (a < 0) continue;
    const b = targets[i] as number;
    const w = edgeWeights[edges[i] as number] as number;
    from[at] = a;
    to[at] = b;
    weight[at++] = w;
    from[at] = b;
    to[at] = a;
    weight[at++] = w;
  }
  return { from, to, weight };
}

/** A walk's node number by entity key. */
export interface NodeIndex {
  get(key: string): number | undefined;
}

/**
 * The nodes of a walk over a numbered graph, found by entity ordinal: numbering a walk's nodes
 * then reads no text key (a key is looked up only for the few seeds and ranked entities asked for).
 */
class NumberedNodeIndex implements NodeIndex {
  readonly byNumber = new Map<number, number>();
  /** Extra nodes without an ordinal (entities in no relationship). */
  private readonly unnumbered = new Map<string, number>();

  constructor(private readonly entityNumbers: ReadonlyMap<string, number>) {}

  get(key: string): number | undefined {
    const n = this.entityNumbers.get(key);
    return (n === undefined ? undefined : this.byNumber.get(n)) ?? this.unnumbered.get(key);
  }

  add(key: string, node: number): void {
    const n = this.entityNumbers.get(key);
    if (n === undefined) this.unnumbered.set(key, node);
    else this.byNumber.set(n, node);
  }
}

/** One key per unordered pair (lo < hi): a small integer while the graph is small, else text. */
function pairCode(lo: number, hi: number): number | string {
  return hi < SMALL_PAIR_CODES ? lo * SMALL_PAIR_CODES + hi : `${lo},${hi}`;
}

/**
 * Personalised PageRank by power iteration: a random walk that follows edges in proportion to
 * their weight and, with probability 1 - damping, restarts at a seed chosen by seed weight. The
 * stationary scores measure how reachable each node is from what the question is about, so a
 * node two hops away (the bridge of a multi-hop question) still scores. Mass reaching a node with
 * no edges returns to the seeds. Scores (aligned with graph.nodes) sum to 1; all 0 without a
 * positive seed. Seeds must be among the graph's nodes (its extra nodes).
 */
export function personalizedPageRank(
  graph: WalkGraph,
  seeds: Map<string, number>,
  options: PageRankOptions = {},
): Float64Array {
  const damping = options.damping ?? DAMPING;
  const maxIterations = options.maxIterations ?? 50;
  const tolerance = options.tolerance ?? 1e-6;
  const { nodes, offsets, targets, weights, strength } = graph;
  const positive = [...seeds].filter(([, w]) => w > 0);
  const total = positive.reduce((sum, [, w]) => sum + w, 0);
  if (total === 0) return new Float64Array(nodes.length);

  const probabilities = new Float64Array(weights.length);
  for (let i = 0; i < nodes.length; i++) {
    for (let e = offsets[i] as number; e < (offsets[i + 1] as number); e++)
      probabilities[e] = (weights[e] as number) / (strength[i] as number);
  }
  const restart = new Float64Array(nodes.length);
  for (const [n, w] of positive) {
    const id = graph.index.get(n);
    if (id === undefined) throw new Error(`PageRank seed ${JSON.stringify(n)} is not in the walk's graph`);
    restart[id] = w / total;
  }

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
  return scores;
}
