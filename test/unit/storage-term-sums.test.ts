import { describe, expect, it } from "vitest";
import type { TermPostings } from "../../src/storage/sqlite/fts-vocabulary.js";
import { TermSums } from "../../src/storage/sqlite/term-sums.js";

/** A small deterministic generator (mulberry32; the test must not depend on Math.random): an integer below n. */
function generator(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** `count` distinct rows below `rows`, ascending, each with a share up to `highest` (rounded to `step` so ties occur). */
function postingsOf(
  random: (n: number) => number,
  rows: number,
  count: number,
  highest: number,
  step: number,
) {
  const picked: number[] = [];
  for (let row = 0; row < rows; row++) if (random(rows) < count) picked.push(row);
  const rowids = Int32Array.from(picked);
  const scores = Float64Array.from(rowids, () =>
    Math.max(step, Math.round(((random(1000) / 1000) * highest) / step) * step),
  );
  return { rowids, scores } satisfies TermPostings;
}

/** Question-like terms: a few rare words with high shares, several common ones with low shares. */
function queryPostings(random: (n: number) => number, rows: number): TermPostings[] {
  const terms: TermPostings[] = [];
  const count = 1 + random(12);
  for (let t = 0; t < count; t++) {
    const rare = random(3) === 0;
    const step = random(2) === 0 ? 0.25 : 1e-7;
    terms.push(
      rare
        ? postingsOf(random, rows, 1 + random(40), 6 + random(6), step)
        : postingsOf(random, rows, 50 + random(rows / 2), 0.3 + random(3) / 2, step),
    );
  }
  return terms;
}

describe("TermSums", () => {
  it("ranks as summing every posting would, to the last bit, ties to the older row", () => {
    const random = generator(29);
    const sums = new TermSums();
    const full = new TermSums();
    let pruned = 0;
    for (let trial = 0; trial < 400; trial++) {
      const postings = queryPostings(random, 200 + random(3000));
      const topK = 1 + random(60);
      const got = sums.top(postings, topK);
      if (sums.skippedTerms > 0) pruned++;
      expect(got).toEqual(full.fullTop(postings, topK));
    }
    // The pruned path ran on many of the trials, not only the full one.
    expect(pruned).toBeGreaterThan(50);
  });

  it("skips the common terms once the rare ones have settled the top", () => {
    const rows = 5_000;
    const rare: TermPostings = {
      rowids: Int32Array.from([10, 20, 30, 40]),
      scores: Float64Array.from([9, 8, 7, 6]),
    };
    const common: TermPostings = {
      rowids: Int32Array.from({ length: rows / 2 }, (_, i) => 2 * i),
      scores: new Float64Array(rows / 2).fill(0.5),
    };
    const sums = new TermSums();
    const top = sums.top([common, rare, common], 3);
    expect(sums.skippedTerms).toBe(2);
    expect(top).toEqual([
      { row: 10, score: 0.5 + 9 + 0.5 },
      { row: 20, score: 0.5 + 8 + 0.5 },
      { row: 30, score: 0.5 + 7 + 0.5 },
    ]);
    expect(top).toEqual(new TermSums().fullTop([common, rare, common], 3));
  });

  it("keeps a row tied at the k-th place by the older row, as FTS5 orders ties", () => {
    const a: TermPostings = {
      rowids: Int32Array.from([1, 2, 3, 4, 5]),
      scores: Float64Array.from([5, 2, 2, 2, 2]),
    };
    const b: TermPostings = { rowids: Int32Array.from([7, 9]), scores: Float64Array.from([2, 1]) };
    expect(new TermSums().top([a, b], 3)).toEqual([
      { row: 1, score: 5 },
      { row: 2, score: 2 },
      { row: 3, score: 2 },
    ]);
  });

  it("returns nothing without a matching row or for k 0", () => {
    const empty: TermPostings = { rowids: new Int32Array(0), scores: new Float64Array(0) };
    expect(new TermSums().top([empty], 5)).toEqual([]);
    expect(new TermSums().top([{ rowids: Int32Array.from([1]), scores: Float64Array.from([1]) }], 0)).toEqual(
      [],
    );
  });
});
