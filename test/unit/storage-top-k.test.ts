import { describe, expect, it } from "vitest";
import { TopK } from "../../src/storage/ranking/top-k.js";

describe("TopK", () => {
  it("keeps the k best pairs, best first, ties to the lower row", () => {
    const best = new TopK(3);
    for (const [row, score] of [5, 1, 9, 7, 9, 2].entries()) best.offer(score, row);
    expect(best.sorted()).toEqual([
      { row: 2, score: 9 },
      { row: 4, score: 9 },
      { row: 3, score: 7 },
    ]);
  });

  it("grows with what is offered, so a k past any typed array's length still ranks", () => {
    const best = new TopK(99_999_999_999);
    for (let row = 0; row < 500; row++) best.offer((row * 37) % 101, row);
    const kept = best.sorted();
    expect(kept).toHaveLength(500);
    expect(kept[0]).toEqual({ row: 30, score: 100 });
    expect(kept.map((k) => k.score)).toEqual([...kept.map((k) => k.score)].sort((a, b) => b - a));
  });

  it("keeps nothing for k 0", () => {
    const none = new TopK(0);
    none.offer(1, 1);
    expect(none.sorted()).toEqual([]);
  });
});
