import { describe, expect, it } from "vitest";
import { topScores, topScoresOf } from "../../src/query/graph/graph-expansion.js";

/** What topScores must equal: every entry sorted by score (a stable sort keeps ties in map order), cut at n. */
function sortedTop(scores: Map<string, number>, n: number) {
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, n);
}

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("topScores", () => {
  it("gives the n best, best first, ties in the map's order, as a full stable sort does", () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const scores = new Map<string, number>();
      const size = Math.floor(next() * 300);
      // Few distinct values, so many scores tie (as equal PageRank shares do).
      for (let i = 0; i < size; i++) scores.set(`k${Math.floor(next() * 1000)}`, Math.floor(next() * 8) / 8);
      for (const n of [0, 1, 5, 40, size, size + 3])
        expect(topScores(scores, n)).toEqual(sortedTop(scores, n));
    }
  });

  it("keeps the earlier of two equal scores when only one fits", () => {
    const scores = new Map([
      ["late-best", 0.5],
      ["first-tie", 0.25],
      ["second-tie", 0.25],
    ]);
    expect(topScores(scores, 2).map((s) => s.id)).toEqual(["late-best", "first-tie"]);
  });
});

describe("topScoresOf", () => {
  it("ranks parallel arrays as topScores ranks the same map, skipping refused scores", () => {
    const next = random(7);
    const ids = Array.from({ length: 500 }, (_, i) => `id${i}`);
    // Few distinct values, so ties are many.
    const scores = Float64Array.from(ids, () => Math.floor(next() * 20) / 4);
    const kept = new Map(ids.map((id, i) => [id, scores[i] as number] as const).filter(([, s]) => s > 0));
    for (const n of [0, 1, 7, 40, 600])
      expect(topScoresOf(ids, scores, n, (score) => score > 0)).toEqual(topScores(kept, n));
  });
});
