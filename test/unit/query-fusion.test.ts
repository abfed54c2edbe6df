import { describe, expect, it } from "vitest";
import { FusionSchema } from "../../src/config.js";
import {
  interleave,
  normalizedScoreFusion,
  RRF_K,
  reciprocalRankFusion,
  weightedReciprocalRankFusion,
} from "../../src/query/fusion.js";
import { denseWeight } from "../../src/query/modes/naive.js";

const list = (...ids: string[]) => ids.map((id, i) => ({ id, score: 100 - i }));

describe("reciprocal rank fusion", () => {
  it("scores each id by the sum of 1/(k + rank) over the lists", () => {
    const fused = reciprocalRankFusion([list("a", "b"), list("b", "c")]);
    const score = new Map(fused.map((s) => [s.id, s.score]));
    expect(score.get("b")).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(score.get("a")).toBeCloseTo(1 / (RRF_K + 1));
    expect(score.get("c")).toBeCloseTo(1 / (RRF_K + 2));
  });

  it("puts what both lists found ahead of what only one ranked first", () => {
    const fused = reciprocalRankFusion([list("vector-only", "both"), list("text-only", "both")]);
    expect(fused[0]?.id).toBe("both");
  });

  it("ignores the lists' own scores, so incomparable scales fuse fairly", () => {
    const cosine = [{ id: "x", score: 0.9 }];
    const bm25 = [{ id: "y", score: 42 }];
    const fused = reciprocalRankFusion([cosine, bm25]);
    expect(fused[0]?.score).toBeCloseTo(fused[1]?.score ?? 0);
  });

  it("counts an id once per list even if a list repeats it", () => {
    const fused = reciprocalRankFusion([list("a", "a", "b")]);
    expect(fused.map((s) => s.id)).toEqual(["a", "b"]);
    expect(fused[1]?.score).toBeCloseTo(1 / (RRF_K + 2));
  });
});

describe("interleave", () => {
  it("alternates the lists and keeps each id at its first position", () => {
    const merged = interleave([list("a", "b", "c"), list("b", "d")]);
    expect(merged.map((s) => s.id)).toEqual(["a", "b", "d", "c"]);
  });

  it("handles empty lists", () => {
    expect(interleave([[], list("a")]).map((s) => s.id)).toEqual(["a"]);
    expect(interleave([])).toEqual([]);
  });
});

describe("weighted reciprocal rank fusion", () => {
  it("scores each id by the sum of weight/(k + rank) over the lists", () => {
    const fused = weightedReciprocalRankFusion([
      { items: list("a", "b"), weight: 1 },
      { items: list("b", "c"), weight: 0.5 },
    ]);
    const score = new Map(fused.map((s) => [s.id, s.score]));
    expect(score.get("b")).toBeCloseTo(1 / (RRF_K + 2) + 0.5 / (RRF_K + 1));
    expect(score.get("c")).toBeCloseTo(0.5 / (RRF_K + 2));
  });

  it("lets the stronger list keep its order where plain fusion would let the weaker one reorder it", () => {
    const strong = list("gold", "x", "y");
    const weak = list("y", "x", "noise");
    expect(reciprocalRankFusion([strong, weak])[0]?.id).not.toBe("gold");
    const fused = weightedReciprocalRankFusion([
      { items: strong, weight: 1 },
      { items: weak, weight: 0.01 },
    ]);
    expect(fused[0]?.id).toBe("gold");
  });

  it("still adds what only the weaker list found, after the stronger list's hits", () => {
    const fused = weightedReciprocalRankFusion([
      { items: list("a"), weight: 1 },
      { items: list("only-weak"), weight: 0.25 },
    ]);
    expect(fused.map((s) => s.id)).toEqual(["a", "only-weak"]);
  });

  it("leaves out a list of weight 0", () => {
    const fused = weightedReciprocalRankFusion([
      { items: list("a"), weight: 1 },
      { items: list("b"), weight: 0 },
    ]);
    expect(fused.map((s) => s.id)).toEqual(["a"]);
  });

  it("equals plain reciprocal rank fusion when every weight is 1", () => {
    const lists = [list("a", "b", "c"), list("c", "d")];
    expect(weightedReciprocalRankFusion(lists.map((items) => ({ items, weight: 1 })))).toEqual(
      reciprocalRankFusion(lists),
    );
  });
});

describe("naive's dense weight", () => {
  const fusion = FusionSchema.parse({ vector: 1, hashingVector: 0.25 });

  it("counts a semantic embedder's ranking fully and the hashing embedder's for less", () => {
    expect(denseWeight({ kind: "openai" }, fusion)).toBe(1);
    expect(denseWeight({ kind: "langchain" }, fusion)).toBe(1);
    expect(denseWeight({ kind: "hashing" }, fusion)).toBe(0.25);
  });

  it("follows the configured weights", () => {
    expect(denseWeight({ kind: "hashing" }, FusionSchema.parse({ hashingVector: 0 }))).toBe(0);
  });
});

describe("normalised score fusion", () => {
  it("maps each list to [0, 1] and sums with the list's weight", () => {
    const fused = normalizedScoreFusion([
      {
        items: [
          { id: "a", score: 10 },
          { id: "b", score: 5 },
          { id: "c", score: 0 },
        ],
        weight: 1,
      },
      {
        items: [
          { id: "c", score: 0.9 },
          { id: "a", score: 0.1 },
        ],
        weight: 0.5,
      },
    ]);
    const score = new Map(fused.map((s) => [s.id, s.score]));
    expect(score.get("a")).toBeCloseTo(1);
    expect(score.get("b")).toBeCloseTo(0.5);
    expect(score.get("c")).toBeCloseTo(0.5);
    expect(fused[0]?.id).toBe("a");
  });

  it("gives the weakest kept hit the floor instead of nothing", () => {
    const items = [
      { id: "a", score: 10 },
      { id: "b", score: 5 },
      { id: "c", score: 0 },
    ];
    const score = new Map(normalizedScoreFusion([{ items, weight: 1 }], 0.1).map((s) => [s.id, s.score]));
    expect(score.get("a")).toBeCloseTo(1);
    expect(score.get("b")).toBeCloseTo(0.55);
    expect(score.get("c")).toBeCloseTo(0.1);
  });

  it("counts every hit of a flat list as 1", () => {
    const fused = normalizedScoreFusion([{ items: list("x").map((i) => ({ ...i, score: 3 })), weight: 2 }]);
    expect(fused).toEqual([{ id: "x", score: 2 }]);
  });
});
