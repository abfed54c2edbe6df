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
  const ids: string[] = [];
  for (const [id, score] of scores) {
    heap.offer(score, ids.length);
    ids.push(id);
  }
  return heap.best().map(({ position, score }) => ({ id: ids[position] as string, score }));
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
    if (keep(score)) heap.offer(score, i);
  }
  return heap.best().map(({ position }) => position);
}

/**
 * The `size` best (score, position) pairs offered, in a min-heap whose root is the worst of them;
 * of two equal scores the one offered later ranks lower. Kept in typed arrays: an object per
 * offer was a tenth of what a mix query allocated (walks offer every node and edge).
 */
class BestOf {
  private readonly scores: Float64Array;
  private readonly positions: Int32Array;
  private count = 0;

  constructor(private readonly size: number) {
    this.scores = new Float64Array(size);
    this.positions = new Int32Array(size);
  }

  offer(score: number, position: number): void {
    if (this.count < this.size) {
      this.scores[this.count] = score;
      this.positions[this.count] = position;
      this.up(this.count++);
    } else if (this.below(0, score, position)) {
      this.scores[0] = score;
      this.positions[0] = position;
      this.down(0);
    }
  }

  /** The pairs kept, best first. */
  best(): { position: number; score: number }[] {
    const kept = Array.from(this.positions.subarray(0, this.count), (position, at) => ({
      position,
      score: this.scores[at] as number,
    }));
    const below = (a: (typeof kept)[number], b: (typeof kept)[number]) =>
      ranksBelow(a.score, a.position, b.score, b.position);
    return kept.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
  }

  /** Whether the entry at `at` ranks below (score, position). */
  private below(at: number, score: number, position: number): boolean {
    return ranksBelow(this.scores[at] as number, this.positions[at] as number, score, position);
  }

  private belowEntry(a: number, b: number): boolean {
    return this.below(a, this.scores[b] as number, this.positions[b] as number);
  }

  private up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.belowEntry(at, parent)) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private down(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < this.count && this.belowEntry(left, worst)) worst = left;
      if (right < this.count && this.belowEntry(right, worst)) worst = right;
      if (worst === at) return;
      this.swap(at, worst);
      at = worst;
    }
  }

  private swap(a: number, b: number): void {
    const score = this.scores[a] as number;
    this.scores[a] = this.scores[b] as number;
    this.scores[b] = score;
    const position = this.positions[a] as number;
    this.positions[a] = this.positions[b] as number;
    this.positions[b] = position;
  }
}

/** Ranks a below b: a lower score, or an equal score offered later. */
function ranksBelow(aScore: number, aPosition: number, bScore: number, bPosition: number): boolean {
  return aScore < bScore || (aScore === bScore && aPosition > bPosition);
}

export function addScore<K>(scores: Map<K, number>, id: K, by: number): void {
  scores.set(id, (scores.get(id) ?? 0) + by);
}
