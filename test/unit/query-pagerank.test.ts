import { describe, expect, it } from "vitest";
import { type PageRankOptions, personalizedPageRank, WalkGraph } from "../../src/query/graph/pagerank.js";

function graph(edges: [string, string, number][], extraNodes: string[] = []): WalkGraph {
  return WalkGraph.fromEdges(
    edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
    extraNodes,
  );
}

/** The walk's positive scores by node, the seeds added to the graph as the ranking does. */
function pageRank(
  edges: [string, string, number][],
  seeds: Map<string, number>,
  options?: PageRankOptions,
): Map<string, number> {
  const positive = [...seeds].filter(([, w]) => w > 0).map(([key]) => key);
  const walk = graph(edges, positive);
  return walk.scoreMap(personalizedPageRank(walk, seeds, options));
}

const total = (scores: Map<string, number>) => [...scores.values()].reduce((a, b) => a + b, 0);

describe("personalized PageRank", () => {
  it("reaches a node two hops from the seed, ranked by distance", () => {
    const scores = pageRank(
      [
        ["seed", "bridge", 1],
        ["bridge", "answer", 1],
        ["answer", "far", 1],
      ],
      new Map([["seed", 1]]),
    );
    const s = (k: string) => scores.get(k) ?? 0;
    expect(s("answer")).toBeGreaterThan(0);
    expect(s("seed")).toBeGreaterThan(s("answer"));
    expect(s("answer")).toBeGreaterThan(s("far"));
    expect(total(scores)).toBeCloseTo(1, 6);
  });

  it("follows heavier edges more", () => {
    const scores = pageRank(
      [
        ["seed", "strong", 9],
        ["seed", "weak", 1],
      ],
      new Map([["seed", 1]]),
    );
    expect(scores.get("strong") ?? 0).toBeGreaterThan((scores.get("weak") ?? 0) * 5);
  });

  it("restarts at the seeds in proportion to their weights", () => {
    const scores = pageRank(
      [["a", "b", 1]],
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
    expect(pageRank([["a", "b", 1]], new Map([["a", 0]])).size).toBe(0);
  });

  it("ignores self-loops and non-positive weights when building the graph", () => {
    const walk = graph([
      ["a", "a", 1],
      ["a", "b", 0],
    ]);
    expect(walk.nodes).toEqual([]);
  });

  it("numbers nodes in order of appearance and adds up the weights of two edges joining one pair", () => {
    const walk = graph(
      [
        ["b", "a", 1],
        ["a", "c", 2],
        ["a", "b", 3],
        ["d", "d", 1],
        ["e", "a", 0],
      ],
      ["d"],
    );
    expect(walk.nodes).toEqual(["b", "a", "c", "d"]);
    // Left-out edges keep the ends that are nodes anyway.
    expect([...walk.edgeEnds.sources]).toEqual([0, 1, 1, 3, -1]);
    expect([...walk.edgeEnds.targets]).toEqual([1, 2, 0, 3, 1]);
    const row = (node: string) => {
      const i = walk.index.get(node) ?? -1;
      const out: [string, number][] = [];
      for (let e = walk.offsets[i] ?? 0; e < (walk.offsets[i + 1] ?? 0); e++)
        out.push([walk.nodes[walk.targets[e] ?? -1] ?? "?", walk.weights[e] ?? 0]);
      return out;
    };
    expect(row("a")).toEqual([
      ["b", 4],
      ["c", 2],
    ]);
    expect(row("b")).toEqual([["a", 4]]);
    expect(row("d")).toEqual([]);
    expect([...walk.strength]).toEqual([4, 6, 2, 0]);
  });
});
