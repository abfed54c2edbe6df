import { seededRandom } from "../../src/community/seeded-random.js";

/** An edge list: [source key, target key, weight]. */
export type EdgeList = [string, string, number][];

const nodeName = (i: number) => `n${String(i).padStart(4, "0")}`;

/** `count` cliques of `size` nodes, consecutive cliques joined by one edge (a ring when count > 2). */
export function joinedCliques(count: number, size: number, prefix = "k"): EdgeList {
  const edges: EdgeList = [];
  const node = (c: number, i: number) => `${prefix}${c}-${i}`;
  for (let c = 0; c < count; c++) {
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) edges.push([node(c, i), node(c, j), 1]);
    if (count > 1 && (c + 1 < count || count > 2)) edges.push([node(c, 0), node((c + 1) % count, 0), 1]);
  }
  return edges;
}

export interface BlockModelOptions {
  nodes: number;
  edges: number;
  blocks: number;
  /** Share of edges that stay inside their source's block. */
  mixing: number;
  seed: number;
}

/**
 * A degree-corrected stochastic block model: block sizes and node activity are heavy-tailed
 * (Pareto), like entity graphs from real documents, where a few hubs gather most relationships.
 * Every node gets at least one edge; weights are summed 1-10 strengths.
 */
export function blockModelGraph(options: BlockModelOptions): EdgeList {
  const random = seededRandom(options.seed);
  const pareto = (alpha: number) => (1 - random()) ** (-1 / alpha);
  const blockWeights = Array.from({ length: options.blocks }, () => pareto(1.5));
  const totalBlockWeight = blockWeights.reduce((a, b) => a + b, 0);
  const blockOf: number[] = [];
  for (let i = 0; i < options.nodes; i++) {
    let r = random() * totalBlockWeight;
    let b = 0;
    while (b < options.blocks - 1 && r >= (blockWeights[b] as number)) r -= blockWeights[b++] as number;
    blockOf.push(b);
  }
  const activity = Array.from({ length: options.nodes }, () => pareto(1.8));
  const members = Array.from({ length: options.blocks }, (_, b) =>
    blockOf.flatMap((x, i) => (x === b ? [i] : [])),
  );
  const pick = (candidates: number[]) => {
    const total = candidates.reduce((sum, i) => sum + (activity[i] as number), 0);
    let r = random() * total;
    for (const i of candidates) {
      r -= activity[i] as number;
      if (r < 0) return i;
    }
    return candidates.at(-1) as number;
  };
  const everyone = Array.from({ length: options.nodes }, (_, i) => i);
  const pairs = new Map<string, [string, string, number]>();
  const addEdge = (source: number) => {
    const inside = random() < options.mixing && (members[blockOf[source] as number]?.length ?? 0) > 1;
    let target = source;
    for (let tries = 0; target === source && tries < 20; tries++) {
      target = pick(inside ? (members[blockOf[source] as number] as number[]) : everyone);
    }
    if (target === source) return;
    const [a, b] = [nodeName(Math.min(source, target)), nodeName(Math.max(source, target))];
    const strength = 1 + Math.floor(random() * 10);
    const existing = pairs.get(`${a}|${b}`);
    if (existing) existing[2] += strength;
    else pairs.set(`${a}|${b}`, [a, b, strength]);
  };
  for (const source of everyone) addEdge(source);
  for (let guard = 0; pairs.size < options.edges && guard < options.edges * 50; guard++)
    addEdge(pick(everyone));
  return [...pairs.values()];
}

/** The distinct node keys of an edge list, in first-seen order. */
export function nodesOf(edges: EdgeList | [string, string, number?][]): string[] {
  const keys = new Set<string>();
  for (const [a, b] of edges) keys.add(a).add(b);
  return [...keys];
}
