import { describe, expect, it } from "vitest";
import { type Adjacency, addEdge, personalizedPageRank } from "../../src/query/graph/pagerank.js";

function graph(edges: [string, string, number][]): Adjacency {
  const adjacency: Adjacency = new Map();
  for (const [a, b, w] of edges) addEdge(adjacency, a, b, w);
  return adjacency;
}

const total = (scores: Map<string, number>) => [...scores.values()].reduce((a, b) => a + b, 0);

describe("personalized PageRank", () => {
  it("reaches a node two hops from the seed, ranked by distance", () => {
    const scores = personalizedPageRank(
      graph([
        ["seed", "bridge", 1],
        ["bridge", "answer", 1],
        ["answer", "far", 1],
      ]),
      new Map([["seed", 1]]),
    );
    const s = (k: string) => scores.get(k) ?? 0;
    expect(s("answer")).toBeGreaterThan(0);
    expect(s("seed")).toBeGreaterThan(s("answer"));
    expect(s("answer")).toBeGreaterThan(s("far"));
    expect(total(scores)).toBeCloseTo(1, 6);
  });

  it("follows heavier edges more", () => {
    const scores = personalizedPageRank(
      graph([
        ["seed", "strong", 9],
        ["seed", "weak", 1],
      ]),
      new Map([["seed", 1]]),
    );
    expect(scores.get("strong") ?? 0).toBeGreaterThan((scores.get("weak") ?? 0) * 5);
  });

  it("restarts at the seeds in proportion to their weights", () => {
    const scores = personalizedPageRank(
      graph([["a", "b", 1]]),
      new Map([
        ["a", 3],
        ["c", 1],
      ]),
    );
    // c has no edges: its mass returns to the seeds, so nothing leaks and c keeps a share.
    expect(total(scores)).toBeCloseTo(1, 6);
    expect(scores.get("c") ?? 0).toBeGreaterThan(0);
    expect(scores.get("a") ?? 0).toBeGreaterThan(scores.get("c") ?? 0);
  });

  it("is empty without a positive seed", () => {
    expect(personalizedPageRank(graph([["a", "b", 1]]), new Map([["a", 0]])).size).toBe(0);
  });

  it("ignores self-loops and non-positive weights when building the graph", () => {
    const adjacency = graph([
      ["a", "a", 1],
      ["a", "b", 0],
    ]);
    expect(adjacency.size).toBe(0);
  });
});
