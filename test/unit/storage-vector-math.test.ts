import { describe, expect, it } from "vitest";
import {
  FixedIdSet,
  MatrixBuilder,
  searchMatrix,
  type VectorMatrix,
} from "../../src/storage/vectors/vector-math.js";

const DIM = 24;

/** A deterministic pseudo-random generator, so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

function sparseVector(next: () => number, nonZero: number): number[] {
  const vector = new Array<number>(DIM).fill(0);
  for (let k = 0; k < nonZero; k++) vector[Math.floor(next() * DIM)] = next() - 0.5;
  return vector;
}

function build(vectors: number[][]): VectorMatrix {
  const builder = new MatrixBuilder(vectors.length, DIM);
  vectors.forEach((vector, row) => {
    builder.add(`v${String(row).padStart(4, "0")}`, new Uint8Array(new Float32Array(vector).buffer));
  });
  return builder.finish();
}

function cosine(a: number[], b: number[]): number {
  const fa = Float32Array.from(a);
  const fb = Float32Array.from(b);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < DIM; i++) {
    dot += (fa[i] as number) * (fb[i] as number);
    na += (fa[i] as number) ** 2;
    nb += (fb[i] as number) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The reference answer: every allowed row scored by plain cosine, best first, ties by id. */
function bruteForce(vectors: number[][], query: number[], topK: number, allow?: Set<string>) {
  return vectors
    .map((vector, row) => ({ id: `v${String(row).padStart(4, "0")}`, score: cosine(vector, query) }))
    .filter((hit) => !allow || allow.has(hit.id))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, topK);
}

function expectSameRanking(
  actual: { id: string; score: number }[],
  expected: { id: string; score: number }[],
) {
  expect(actual.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
  for (const [i, hit] of actual.entries()) expect(hit.score).toBeCloseTo(expected[i]?.score as number, 5);
}

describe("column-major exact vector search", () => {
  const next = random(7);
  // More rows than one score block (2048), so block edges are crossed.
  const vectors = Array.from({ length: 5000 }, () => sparseVector(next, 6));

  it("ranks like brute-force cosine for sparse and dense queries", () => {
    const matrix = build(vectors);
    const sparse = sparseVector(next, 3);
    const dense = Array.from({ length: DIM }, () => next() - 0.5);
    for (const query of [sparse, dense]) {
      expectSameRanking(searchMatrix(matrix, query, 10), bruteForce(vectors, query, 10));
    }
  });

  it("takes top-k among allowed rows, for small and for large allow-lists", () => {
    const matrix = build(vectors);
    const query = sparseVector(next, 5);
    const small = new Set(Array.from({ length: 40 }, (_, i) => `v${String(i * 97).padStart(4, "0")}`));
    const large = new Set(Array.from({ length: 3000 }, (_, i) => `v${String(i + 1000).padStart(4, "0")}`));
    for (const allow of [small, large]) {
      const hits = searchMatrix(matrix, query, 7, allow);
      expect(hits.every((hit) => allow.has(hit.id))).toBe(true);
      expectSameRanking(hits, bruteForce(vectors, query, 7, allow));
    }
  });

  it("answers a recurring allow-list from a copy of its rows exactly as from the whole matrix, ties included", () => {
    const next = random(29);
    // Vectors in groups of four equal ones: ties at every cut, which rows of a tie are kept must not change.
    const vectors: number[][] = [];
    for (let row = 0; row < 600; row++) {
      vectors.push(row % 4 === 0 ? sparseVector(next, 6) : (vectors[row - (row % 4)] as number[]));
    }
    const matrix = build(vectors);
    // Most rows (a scan of whole columns), listed backwards, with an id the matrix lacks.
    const ids = vectors.map((_, row) => `v${String(row).padStart(4, "0")}`).filter((_, row) => row % 5 !== 0);
    const recurring = new FixedIdSet(["missing", ...ids.reverse()]);
    const query = sparseVector(next, 10);
    for (const topK of [1, 2, 5, 7, 13, 40]) {
      // A list made afresh each time is searched in the whole matrix.
      const expected = searchMatrix(matrix, query, topK, new Set(recurring));
      for (let round = 0; round < 3; round++) {
        expect(searchMatrix(matrix, query, topK, recurring), `top ${topK}, round ${round}`).toEqual(expected);
      }
    }
    // A reloaded matrix (new rows) is not answered from the old copy, and gets a copy of its own.
    const changed = build(vectors.map((vector) => vector.map((value) => -value)));
    const expectedChanged = searchMatrix(changed, query, 5, new Set(recurring));
    for (let round = 0; round < 3; round++)
      expect(searchMatrix(changed, query, 5, recurring)).toEqual(expectedChanged);
  });

  it("answers a plain allow-list changed between searches from its current contents; a fixed one refuses changes", () => {
    const next = random(31);
    const vectors = Array.from({ length: 200 }, () => sparseVector(next, 6));
    const matrix = build(vectors);
    const query = sparseVector(next, 10);
    const allow = new Set(vectors.map((_, row) => `v${String(row).padStart(4, "0")}`));
    const best = () => searchMatrix(matrix, query, 1, allow)[0]?.id;
    const first = best();
    expect(best()).toBe(first);
    expect(best()).toBe(first);
    allow.delete(first as string);
    expect(best()).not.toBe(first);
    expect(best()).toBe(bruteForce(vectors, query, 1, allow)[0]?.id);
    const fixed = new FixedIdSet(["v0001", "v0002"]);
    expect(fixed.size).toBe(2);
    expect(() => fixed.add("v0003")).toThrow(/does not change/);
    expect(() => fixed.delete("v0001")).toThrow(/does not change/);
    expect(() => fixed.clear()).toThrow(/does not change/);
  });

  it("gives the same answer on repeated searches (the score buffer is reused)", () => {
    const matrix = build(vectors);
    const first = sparseVector(next, 4);
    const second = sparseVector(next, 4);
    const before = searchMatrix(matrix, first, 5);
    searchMatrix(matrix, second, 5);
    expect(searchMatrix(matrix, first, 5)).toEqual(before);
  });

  it("refuses a row of the wrong length and a short load", () => {
    const builder = new MatrixBuilder(2, DIM);
    expect(() => builder.add("short", new Uint8Array(8))).toThrow(/does not fit/);
    builder.add("ok", new Uint8Array(DIM * 4));
    expect(() => builder.finish()).toThrow(/Expected 2 vectors/);
  });

  it("a growable builder gives the strict builder's matrix whether its first guess was short or long", () => {
    const strict = build(vectors);
    for (const guess of [0, 3, vectors.length - 1, vectors.length + 37]) {
      const builder = new MatrixBuilder(guess, DIM, true);
      vectors.forEach((vector, row) => {
        builder.add(`v${String(row).padStart(4, "0")}`, new Uint8Array(new Float32Array(vector).buffer));
      });
      const grown = builder.finish();
      expect(grown.ids).toEqual(strict.ids);
      expect(grown.columns).toEqual(strict.columns);
      const query = sparseVector(next, 4);
      expect(searchMatrix(grown, query, 7)).toEqual(searchMatrix(strict, query, 7));
    }
  });
});
