import { describe, expect, it } from "vitest";
import {
  fitting,
  fittingBy,
  lineTokens,
  measuresByKey,
  tokenBound,
} from "../../src/query/context/line-tokens.js";

interface Item {
  name: string;
  description: string;
}

const render = (item: Item) => `- ${item.name}: ${item.description}`;

describe("line measures keyed by description", () => {
  it("counts each item's own line, also when items share a description", () => {
    const measures = measuresByKey(
      render,
      (i: Item) => i.description,
      (i) => [i.name],
    );
    const shared = "A town on the river, founded in 1201 and rebuilt after the fire.";
    const items = [
      { name: "Ely", description: shared },
      { name: "Llanfairpwllgwyngyll Old Borough Council District", description: shared },
      { name: "Ely", description: shared },
      { name: "Ely", description: "Another place." },
    ];
    for (const item of items) {
      expect(measures.exact(item)).toBe(lineTokens(render(item)));
      expect(measures.bound(item)).toBe(tokenBound(render(item)));
    }
    // The second item's longer name gives it a line of its own, not the first one's count.
    expect(measures.exact(items[1] as Item)).toBeGreaterThan(measures.exact(items[0] as Item));
  });

  it("keeps a few lines per shared description and measures the rest each time, still right", () => {
    let renders = 0;
    const counted = (item: Item) => {
      renders += 1;
      return render(item);
    };
    const measures = measuresByKey(
      counted,
      (i: Item) => i.description,
      (i) => [i.name],
    );
    // Forty entities with no description: one key, forty lines.
    const items = Array.from({ length: 40 }, (_, n) => ({ name: `Entity ${n}`, description: "" }));
    for (let round = 0; round < 2; round++) {
      for (const item of items) expect(measures.exact(item)).toBe(lineTokens(render(item)));
    }
    // The first sixteen are remembered (rendered once); the other 24 are rendered in both rounds.
    expect(renders).toBe(16 + 24 * 2);
  });

  it("keeps the same prefix as measuring rendered lines", () => {
    const measures = measuresByKey(
      render,
      (i: Item) => i.description,
      (i) => [i.name],
    );
    const items = Array.from({ length: 30 }, (_, n) => ({
      name: `Entity ${n}`,
      description: `Description number ${n % 7} with a few more words to count.`,
    }));
    for (const budget of [0, 15, 40, 100, 1000]) {
      expect(fittingBy(items, measures.exact, budget)).toEqual(fitting(items, render, budget));
      expect(fittingBy(items, measures.bound, budget)).toEqual(fitting(items, render, budget, tokenBound));
    }
  });
});
