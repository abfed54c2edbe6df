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
  /** Relationships matched directly, best first, scored by fusion of vector and BM25 (global mode). */
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

/**
 * Top n of a score map, best first, ties in the map's order (as a stable sort would give). A walk
 * scores tens of thousands of entities, edges and chunks and keeps 40 of each: a bounded heap
 * keeps the n best instead of sorting them all.
 */
export function topScores(scores: Map<string, number>, n: number): ScoredId[] {
  if (n <= 0) return [];
  const heap = new BestOf(n);
  let order = 0;
  for (const [id, score] of scores) heap.offer({ id, score, order: order++ });
  return heap.best().map(({ id, score }) => ({ id, score }));
}

/**
 * topScores over parallel arrays (ids[i] scored scores[i]), ties in array order, skipping the
 * scores `keep` refuses: a walk's scores come in typed arrays, not maps.
 */
export function topScoresOf(
  ids: readonly string[],
  scores: ArrayLike<number>,
  n: number,
  keep: (score: number) => boolean = () => true,
): ScoredId[] {
  return topIndices(scores, n, keep).map((i) => ({ id: ids[i] as string, score: scores[i] as number }));
}

/** The positions of the top n scores, best first, ties in array order (as topScoresOf ranks them). */
export function topIndices(
  scores: ArrayLike<number>,
  n: number,
  keep: (score: number) => boolean = () => true,
): number[] {
  if (n <= 0) return [];
  const heap = new BestOf(n);
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i] as number;
    if (keep(score)) heap.offer({ id: "", score, order: i });
  }
  return heap.best().map(({ order }) => order);
}

interface Ranked {
  id: string;
  score: number;
  /** Position in the map: the earlier of two equal scores ranks first. */
  order: number;
}

/** Ranks `a` below `b`: a lower score, or an equal score met later. */
function below(a: Ranked, b: Ranked): boolean {
  return a.score < b.score || (a.score === b.score && a.order > b.order);
}

/** The `size` best items offered, in a min-heap whose root is the worst of them. */
class BestOf {
  private readonly items: Ranked[] = [];

  constructor(private readonly size: number) {}

  offer(item: Ranked): void {
    const { items } = this;
    if (items.length < this.size) {
      items.push(item);
      this.up(items.length - 1);
    } else if (below(items[0] as Ranked, item)) {
      items[0] = item;
      this.down(0);
    }
  }

  best(): Ranked[] {
    return [...this.items].sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
  }

  private up(at: number): void {
    const { items } = this;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!below(items[at] as Ranked, items[parent] as Ranked)) return;
      [items[at], items[parent]] = [items[parent] as Ranked, items[at] as Ranked];
      at = parent;
    }
  }

  private down(at: number): void {
    const { items } = this;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < items.length && below(items[left] as Ranked, items[worst] as Ranked)) worst = left;
      if (right < items.length && below(items[right] as Ranked, items[worst] as Ranked)) worst = right;
      if (worst === at) return;
      [items[at], items[worst]] = [items[worst] as Ranked, items[at] as Ranked];
      at = worst;
    }
  }
}

export function addScore<K>(scores: Map<K, number>, id: K, by: number): void {
  scores.set(id, (scores.get(id) ?? 0) + by);
}
