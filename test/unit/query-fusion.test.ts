import { describe, expect, it } from "vitest";
import { interleave, RRF_K, reciprocalRankFusion } from "../../src/query/fusion.js";

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
