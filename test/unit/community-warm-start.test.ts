import { describe, expect, it } from "vitest";
import { type Clustering, type CommunityNode, clusterGraph } from "../../src/community/cluster.js";
import { continueCommunityIds } from "../../src/community/id-continuity.js";
import { projectGraph } from "../../src/community/project-graph.js";
import { blockModelGraph, type EdgeList, joinedCliques, nodesOf } from "../support/community-graphs.js";

function graphOf(edges: EdgeList) {
  return projectGraph(
    nodesOf(edges).map((key) => ({ key })),
    edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
  );
}

interface Options {
  maxClusterSize?: number;
  seed?: number;
  tolerance?: number;
}

function fresh(edges: EdgeList, options: Options = {}): Clustering {
  return clusterGraph(graphOf(edges), {
    maxClusterSize: options.maxClusterSize ?? 10,
    seed: options.seed ?? 42,
  });
}

function warm(edges: EdgeList, previous: Clustering, options: Options = {}): Clustering {
  return clusterGraph(graphOf(edges), {
    maxClusterSize: options.maxClusterSize ?? 10,
    seed: options.seed ?? 42,
    warmStart: {
      previous: { communities: previous.nodes, fingerprints: previous.fingerprints },
      tolerance: options.tolerance ?? 0.02,
    },
  });
}

const memberSets = (nodes: CommunityNode[]) => nodes.map((n) => `${n.level}:${n.entityKeys.join(",")}`);

/** Communities of `after` whose level and members no community of `before` had. */
function changed(before: CommunityNode[], after: CommunityNode[]): number {
  const known = new Set(memberSets(before));
  return memberSets(after).filter((set) => !known.has(set)).length;
}

/** A large connected graph of many communities, and an edge that brings a new entity into it. */
function largeComponent(): { edges: EdgeList; extra: [string, string, number] } {
  const edges = blockModelGraph({ nodes: 600, edges: 1800, blocks: 30, mixing: 0.7, seed: 12 });
  return { edges, extra: ["n0005", "n0600", 3] };
}

describe("warm-started clustering", () => {
  it("keeps an unchanged graph's previous hierarchy and ids outright, even one fresh Louvain would not find", () => {
    const edges = blockModelGraph({ nodes: 300, edges: 900, blocks: 12, mixing: 0.8, seed: 5 });
    const previous = fresh(edges, { seed: 1 });
    // The run's seed differs from the one the previous hierarchy came from: fresh, it differs.
    expect(memberSets(fresh(edges).nodes)).not.toEqual(memberSets(previous.nodes));
    const again = warm(edges, previous);
    expect(again.nodes).toEqual(previous.nodes);
    expect(again.splits).toMatchObject({ warm: 0, fresh: 0, fellBack: 0 });
    expect(again.splits.kept).toBeGreaterThan(0);
    const continued = continueCommunityIds(again.nodes, previous.nodes, 0.5);
    expect(continued.nodes.map((n) => n.id)).toEqual(previous.nodes.map((n) => n.id));
    expect(continued.retired).toEqual([]);
  });

  it("leaves most communities of a large component alone when one edge (to a new entity) is added to it", () => {
    const { edges, extra } = largeComponent();
    const previous = fresh(edges);
    const grown = [...edges, extra];
    const started = warm(grown, previous);
    const scratch = fresh(grown);
    const total = started.nodes.length;
    expect(total).toBeGreaterThan(60);
    // Only the communities around the new edge (and their parents) may change.
    expect(changed(previous.nodes, started.nodes)).toBeLessThanOrEqual(6);
    // Fresh Louvain reshuffles the component: the case warm starts are for.
    expect(changed(previous.nodes, scratch.nodes)).toBeGreaterThan(total / 4);
    expect(started.splits.warm).toBeGreaterThan(0);
    expect(started.splits.fellBack).toBe(0);
  });

  it("places a new entity in the community of its neighbours and leaves the others alone", () => {
    const edges = joinedCliques(4, 6);
    const previous = fresh(edges, { maxClusterSize: 8 });
    const grown: EdgeList = [...edges, ["k2-1", "new", 1], ["k2-3", "new", 1], ["k2-4", "new", 1]];
    const started = warm(grown, previous, { maxClusterSize: 8 });
    expect(memberSets(started.nodes)).toContain("0:k2-0,k2-1,k2-2,k2-3,k2-4,k2-5,new");
    expect(changed(previous.nodes, started.nodes)).toBe(1);
  });

  it("falls back to fresh clustering when the previous partition is a poor start, and says so", () => {
    // Previously one clique of twelve (one community); now its halves have lost all but one link.
    const everyone = Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, "0")}`);
    const clique: EdgeList = everyone.flatMap((a, i) =>
      everyone.slice(i + 1).map((b): [string, string, number] => [a, b, 1]),
    );
    const previous = fresh(clique, { maxClusterSize: 20 });
    expect(previous.nodes).toHaveLength(1);
    const half = (key: string) => everyone.indexOf(key) < 6;
    const split: EdgeList = [...clique.filter(([a, b]) => half(a) === half(b)), ["m00", "m06", 1]];
    const started = warm(split, previous, { maxClusterSize: 20 });
    expect(started.splits.fellBack).toBe(1);
    expect(memberSets(started.nodes)).toEqual(memberSets(fresh(split, { maxClusterSize: 20 }).nodes));
    expect(started.nodes).toHaveLength(2);
    // With room for any drop, the warm start stays where it began: one community of both halves.
    const tolerant = warm(split, previous, { maxClusterSize: 20, tolerance: 1 });
    expect(tolerant.splits).toMatchObject({ warm: 1, fellBack: 0 });
    expect(tolerant.nodes).toHaveLength(1);
  });

  it("splits a previous community that lost the node joining its parts", () => {
    const triangle = (p: string, w: number): EdgeList => [
      [`${p}1`, `${p}2`, w],
      [`${p}2`, `${p}3`, w],
      [`${p}1`, `${p}3`, w],
    ];
    // Now: triangles a, x, y, b in a row; "hub" that joined a and b is gone.
    const edges: EdgeList = [
      ...triangle("a", 5),
      ...triangle("x", 5),
      ...triangle("y", 5),
      ...triangle("b", 5),
      ["a3", "x1", 1],
      ["x3", "y1", 1],
      ["y3", "b1", 1],
    ];
    const level0 = (keys: string[]) => ({ level: 0, entityKeys: keys });
    const started = clusterGraph(graphOf(edges), {
      maxClusterSize: 20,
      seed: 42,
      warmStart: {
        previous: {
          communities: [
            level0(["a1", "a2", "a3", "b1", "b2", "b3", "hub"]),
            level0(["x1", "x2", "x3"]),
            level0(["y1", "y2", "y3"]),
          ],
          fingerprints: [],
        },
        tolerance: 1,
      },
    });
    expect(started.splits).toMatchObject({ warm: 1, fellBack: 0 });
    expect(memberSets(started.nodes).sort()).toEqual([
      "0:a1,a2,a3",
      "0:b1,b2,b3",
      "0:x1,x2,x3",
      "0:y1,y2,y3",
    ]);
  });
});
