import type { ScoredId } from "../types.js";

/**
 * The constant of reciprocal rank fusion (Cormack et al., 2009). 60 is the value from the paper
 * and the one search engines ship; it damps the head so one list cannot dominate.
 */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank). Only ranks are used, so
 * lists with incomparable scores (cosine, BM25, PageRank) fuse fairly. Ties keep first-seen order.
 */
export function reciprocalRankFusion(lists: ScoredId[][], k = RRF_K): ScoredId[] {
  return weightedReciprocalRankFusion(
    lists.map((items) => ({ items, weight: 1 })),
    k,
  );
}

/** A ranked list and how much its ranks count in weighted fusion (0 leaves it out). */
export interface WeightedList {
  items: ScoredId[];
  weight: number;
}

/**
 * Weighted reciprocal rank fusion: score(d) = sum over lists of weight / (k + rank). A list that
 * carries less information (a lexical stand-in for a semantic ranking, a mode that is weaker on
 * its own) still breaks ties and adds what the others missed, without pulling good rankings down.
 */
export function weightedReciprocalRankFusion(lists: WeightedList[], k = RRF_K): ScoredId[] {
  const scores = new Map<string, number>();
  for (const { items, weight } of lists) {
    if (weight <= 0) continue;
    const seen = new Set<string>();
    let rank = 0;
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      rank += 1;
      scores.set(item.id, (scores.get(item.id) ?? 0) + weight / (k + rank));
    }
  }
  return sortByScore([...scores].map(([id, score]) => ({ id, score })));
}

/**
 * Weighted fusion of min-max normalised scores (CombSUM, as Weaviate's relative score fusion):
 * each list's scores are mapped to [0, 1] (its best 1, its worst kept hit 0) and summed with the
 * list's weight. Unlike rank fusion it keeps how far apart a list's hits are, so a list whose head
 * stands out from the rest lifts that head, and a flat list moves little. A list with one score
 * (or all equal) counts each hit as 1. `floor` (0 to 1) is what the weakest kept hit weighs, so a
 * hit that passed every cut still counts: hits map to [floor, 1] instead of [0, 1].
 */
export function normalizedScoreFusion(lists: WeightedList[], floor = 0): ScoredId[] {
  const scores = new Map<string, number>();
  for (const { items, weight } of lists) {
    if (weight <= 0 || items.length === 0) continue;
    const best = Math.max(...items.map((i) => i.score));
    const worst = Math.min(...items.map((i) => i.score));
    const span = best - worst;
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      const normalised = span > 0 ? floor + ((1 - floor) * (item.score - worst)) / span : 1;
      scores.set(item.id, (scores.get(item.id) ?? 0) + weight * normalised);
    }
  }
  return sortByScore([...scores].map(([id, score]) => ({ id, score })));
}

/** Round-robin merge that keeps each id once, at its first (best) position; scores come from the first list that had it. */
export function interleave(lists: ScoredId[][]): ScoredId[] {
  const out: ScoredId[] = [];
  const seen = new Set<string>();
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) {
    for (const list of lists) {
      const item = list[i];
      if (!item || seen.has(item.id)) continue;
      seen.add(item.id);
      out.push(item);
    }
  }
  return out;
}

/** Best first; equal scores keep their input order (Array.prototype.sort is stable). */
export function sortByScore(items: ScoredId[]): ScoredId[] {
  return [...items].sort((a, b) => b.score - a.score);
}
