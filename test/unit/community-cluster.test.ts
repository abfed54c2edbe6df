import { describe, expect, it } from "vitest";
import { type CommunityNode, clusterHierarchy } from "../../src/community/cluster.js";
import {
  connectedComponents,
  inducedSubgraph,
  type ProjectedGraph,
  projectGraph,
} from "../../src/community/project-graph.js";
import { seededRandom, shuffled } from "../../src/community/seeded-random.js";
import { blockModelGraph, type EdgeList, joinedCliques, nodesOf } from "../support/community-graphs.js";

function cluster(
  edges: EdgeList,
  options: { maxClusterSize?: number; seed?: number; isolated?: string[] } = {},
) {
  const keys = new Set([...(options.isolated ?? []), ...nodesOf(edges)]);
  const graph = projectGraph(
    [...keys].map((key) => ({ key })),
    edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
  );
  return clusterHierarchy(graph, { maxClusterSize: options.maxClusterSize ?? 10, seed: options.seed ?? 42 });
}

const memberSets = (nodes: CommunityNode[]) =>
  nodes.map((n) => `${n.level}:${n.entityKeys.join(",")}`).sort();

/** The structural invariants every hierarchy must satisfy. */
function expectWellFormed(nodes: CommunityNode[], maxClusterSize: number) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  expect(byId.size).toBe(nodes.length);
  for (const node of nodes) {
    expect(node.id).toMatch(new RegExp(`^c${node.level}-[0-9a-f]{12}$`));
    if (node.entityKeys.length > maxClusterSize) {
      expect(node.unsplittable || node.childIds.length > 0).toBe(true);
    }
    if (node.unsplittable) expect(node.childIds).toEqual([]);
    if (node.childIds.length) {
      const children = node.childIds.map((id) => byId.get(id)!);
      const covered = children.flatMap((c) => c.entityKeys).sort();
      expect(covered).toEqual([...node.entityKeys].sort());
      for (const child of children) {
        expect(child.parentId).toBe(node.id);
        expect(child.level).toBe(node.level + 1);
      }
    }
    if (node.parentId) expect(byId.get(node.parentId)?.childIds).toContain(node.id);
    else expect(node.level).toBe(0);
  }
  const levels = new Set(nodes.map((n) => n.level));
  for (const level of levels) {
    const keys = nodes.filter((n) => n.level === level).flatMap((n) => n.entityKeys);
    expect(new Set(keys).size).toBe(keys.length);
  }
}

describe("clusterHierarchy", () => {
  it("keeps a triangle together as one level-0 community", () => {
    const nodes = cluster([
      ["a", "b", 1],
      ["b", "c", 1],
      ["a", "c", 1],
    ]);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ level: 0, parentId: null, childIds: [], entityKeys: ["a", "b", "c"] });
  });

  it("splits two cliques joined by one edge into the two cliques", () => {
    const nodes = cluster(joinedCliques(2, 5));
    expect(memberSets(nodes)).toEqual(["0:k0-0,k0-1,k0-2,k0-3,k0-4", "0:k1-0,k1-1,k1-2,k1-3,k1-4"]);
  });

  it("splits an oversized community into the next level", () => {
    // One component of 4 x 6 cliques: Louvain may group cliques at level 0, but no leaf exceeds 6.
    const nodes = cluster(joinedCliques(4, 6), { maxClusterSize: 6 });
    expectWellFormed(nodes, 6);
    const leaves = nodes.filter((n) => n.childIds.length === 0);
    expect(leaves.every((n) => n.entityKeys.length <= 6)).toBe(true);
    expect(leaves.flatMap((n) => n.entityKeys)).toHaveLength(24);
  });

  it("stops when a split does not split, and marks the community unsplittable", () => {
    const nodes = cluster(joinedCliques(2, 5), { maxClusterSize: 3 });
    expect(nodes).toHaveLength(2);
    for (const node of nodes) expect(node).toMatchObject({ unsplittable: true, childIds: [] });
  });

  it("does not depend on the order of nodes and edges, on edge direction or on duplicated edges", () => {
    const edges = blockModelGraph({ nodes: 120, edges: 260, blocks: 12, mixing: 0.8, seed: 7 });
    const reference = cluster(edges, { maxClusterSize: 8 });
    const reordered = shuffled(edges, seededRandom(99)).map(([a, b, w]): [string, string, number] => [
      b,
      a,
      w,
    ]);
    // Every edge given twice: the store summing duplicates doubles all weights, which modularity ignores.
    const duplicated = [...reordered, ...shuffled(edges, seededRandom(5))];
    expect(cluster(reordered, { maxClusterSize: 8 })).toEqual(reference);
    expect(cluster(duplicated, { maxClusterSize: 8 })).toEqual(reference);
  });

  it("gives the same hierarchy for the same seed", () => {
    const edges = blockModelGraph({ nodes: 150, edges: 320, blocks: 15, mixing: 0.75, seed: 3 });
    expect(cluster(edges, { seed: 11 })).toEqual(cluster(edges, { seed: 11 }));
  });

  it("respects the size rule and keeps parents and children consistent on a larger graph", () => {
    const edges = blockModelGraph({ nodes: 300, edges: 650, blocks: 20, mixing: 0.8, seed: 1 });
    const nodes = cluster(edges, { maxClusterSize: 10 });
    expectWellFormed(nodes, 10);
    expect(Math.max(...nodes.map((n) => n.level))).toBeGreaterThan(0);
    const level0 = nodes.filter((n) => n.level === 0).flatMap((n) => n.entityKeys);
    expect(new Set(level0).size).toBe(nodesOf(edges).length);
  });

  it("clusters a graph holding an absurd stored weight with finite sums: the heaviest edge's ends stay together", () => {
    // Two copies of a 1e308 relationship summed to Infinity, and Louvain then cut both ends loose.
    const edges: EdgeList = [...joinedCliques(4, 5), ["k0-1", "k2-3", 1e308], ["k2-3", "k0-1", 1e308]];
    const graph = projectGraph(
      nodesOf(edges).map((key) => ({ key })),
      edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
    );
    expect(Number.isFinite(graph.getEdgeAttribute("k0-1", "k2-3", "weight"))).toBe(true);
    const nodes = clusterHierarchy(graph, { maxClusterSize: 10, seed: 42 });
    const level0 = nodes.filter((n) => n.level === 0);
    expect(level0.find((n) => n.entityKeys.includes("k0-1"))?.entityKeys).toContain("k2-3");
  });

  it("leaves entities without relationships out of every community", () => {
    const nodes = cluster(joinedCliques(1, 3), { isolated: ["lonely"] });
    expect(nodes.flatMap((n) => n.entityKeys)).not.toContain("lonely");
  });

  it("keeps the ids of untouched communities when an unrelated component appears", () => {
    const before = cluster(joinedCliques(2, 5));
    const after = cluster([...joinedCliques(2, 5), ...joinedCliques(1, 4, "new")]);
    const afterIds = new Set(after.map((n) => n.id));
    for (const node of before) expect(afterIds).toContain(node.id);
    expect(after).toHaveLength(before.length + 1);
  });

  it("rebuilds a connected induced subgraph as the same graph, neighbour order included (clustering reuses it)", () => {
    const edges = blockModelGraph({ nodes: 400, edges: 900, blocks: 12, mixing: 0.85, seed: 5 });
    const graph = projectGraph(
      nodesOf(edges).map((key) => ({ key })),
      edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
    );
    // Louvain's result depends on node order and on each node's neighbour order.
    const layout = (g: ProjectedGraph) => ({
      nodes: g.nodes(),
      neighbours: g.nodes().map((n) => g.neighbors(n)),
      weights: g.edges().map((e) => `${g.source(e)}-${g.target(e)}:${g.getEdgeAttribute(e, "weight")}`),
    });
    let checked = 0;
    for (const component of connectedComponents(graph)) {
      if (component.length < 3) continue;
      const sub = inducedSubgraph(graph, component);
      expect(layout(inducedSubgraph(sub, sub.nodes()))).toEqual(layout(sub));
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
    // The whole graph too, where it is one component, as projectGraph built it.
    const [biggest] = connectedComponents(graph).sort((a, b) => b.length - a.length);
    const whole = inducedSubgraph(graph, biggest!);
    const rebuilt = projectGraph(
      whole.nodes().map((key) => ({ key })),
      whole.edges().map((e) => ({
        sourceKey: whole.source(e),
        targetKey: whole.target(e),
        weight: whole.getEdgeAttribute(e, "weight"),
      })),
    );
    expect(layout(inducedSubgraph(rebuilt, rebuilt.nodes()))).toEqual(layout(rebuilt));
  });
});
