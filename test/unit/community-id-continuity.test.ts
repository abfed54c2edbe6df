import { describe, expect, it } from "vitest";
import { type CommunityNode, clusterHierarchy } from "../../src/community/cluster.js";
import { nextCommunityAliases } from "../../src/community/community-aliases.js";
import {
  continueCommunityIds,
  matchPreviousCommunities,
  type PreviousCommunity,
} from "../../src/community/id-continuity.js";
import { projectGraph } from "../../src/community/project-graph.js";
import { type EdgeList, joinedCliques, nodesOf } from "../support/community-graphs.js";

function node(
  id: string,
  entityKeys: string[],
  links: { level?: number; parentId?: string; childIds?: string[] } = {},
): CommunityNode {
  return {
    id,
    level: links.level ?? 0,
    parentId: links.parentId ?? null,
    childIds: links.childIds ?? [],
    entityKeys: [...entityKeys].sort(),
    unsplittable: false,
  };
}

const was = (id: string, entityKeys: string[], level = 0): PreviousCommunity => ({ id, level, entityKeys });
const keys = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
const idsOf = (nodes: CommunityNode[]) => nodes.map((n) => n.id).sort();

function cluster(edges: EdgeList, maxClusterSize = 10): CommunityNode[] {
  const graph = projectGraph(
    nodesOf(edges).map((key) => ({ key })),
    edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight })),
  );
  return clusterHierarchy(graph, { maxClusterSize, seed: 42 });
}

describe("matchPreviousCommunities", () => {
  it("pairs a community with the previous one it overlaps by at least the threshold", () => {
    const nodes = [node("c0-new", [...keys("a", 4), "x"])];
    const previous = [was("c0-old", keys("a", 4))];
    expect(matchPreviousCommunities(nodes, previous, 0.5)).toEqual(new Map([["c0-new", "c0-old"]]));
    // 4 shared of 5: an overlap of 0.8, below a threshold of 0.9.
    expect(matchPreviousCommunities(nodes, previous, 0.9)).toEqual(new Map());
  });

  it("counts the members of both: a community that doubled is at 0.5, one that tripled below", () => {
    const previous = [was("c0-old", keys("a", 3))];
    const doubled = [node("c0-new", [...keys("a", 3), ...keys("x", 3)])];
    const tripled = [node("c0-new", [...keys("a", 3), ...keys("x", 6)])];
    expect(matchPreviousCommunities(doubled, previous, 0.5).get("c0-new")).toBe("c0-old");
    expect(matchPreviousCommunities(tripled, previous, 0.5).size).toBe(0);
  });

  it("matches only within a level", () => {
    const nodes = [node("c1-new", keys("a", 4), { level: 1 })];
    expect(matchPreviousCommunities(nodes, [was("c0-old", keys("a", 4), 0)], 0.5).size).toBe(0);
    expect(matchPreviousCommunities(nodes, [was("c1-old", keys("a", 4), 1)], 0.5).size).toBe(1);
  });

  it("gives each previous id to one community at most, the best overlap first", () => {
    // A previous community of 8 split into 5 + 3: the larger half keeps the id.
    const nodes = [node("c0-big", keys("a", 8).slice(0, 5)), node("c0-small", keys("a", 8).slice(5))];
    const matched = matchPreviousCommunities(nodes, [was("c0-old", keys("a", 8))], 0.3);
    expect(matched).toEqual(new Map([["c0-big", "c0-old"]]));
  });

  it("breaks equal overlaps by id, whatever the order of the inputs", () => {
    // Two previous pairs merged into one community of 4: both overlap by 0.5.
    const nodes = [node("c0-merged", ["a", "b", "c", "d"])];
    const previous = [was("c0-second", ["c", "d"]), was("c0-first", ["a", "b"])];
    expect(matchPreviousCommunities(nodes, previous, 0.5).get("c0-merged")).toBe("c0-first");
    expect(matchPreviousCommunities(nodes, [...previous].reverse(), 0.5).get("c0-merged")).toBe("c0-first");
  });
});

describe("continueCommunityIds", () => {
  it("leaves a hierarchy without a previous one as clustered (a fresh workspace's ids are the hash ids)", () => {
    const nodes = cluster(joinedCliques(3, 5), 4);
    expect(continueCommunityIds(nodes, [], 0.5)).toEqual({ nodes, retired: [] });
  });

  it("keeps an unchanged hierarchy's ids, even ids it inherited earlier", () => {
    const nodes = cluster(joinedCliques(3, 5), 4);
    const previous = nodes.map((n, i) => was(`c${n.level}-kept${i}`, n.entityKeys, n.level));
    const { nodes: continued, retired } = continueCommunityIds(nodes, previous, 1);
    expect(idsOf(continued)).toEqual(previous.map((p) => p.id).sort());
    expect(retired).toEqual([]);
  });

  it("keeps the id of a community that gained a member and gives a new one its hash id", () => {
    const before = cluster(joinedCliques(2, 5));
    const grownEdges: EdgeList = [...joinedCliques(2, 5), ["k0-1", "k0-new", 1], ["k0-2", "k0-new", 1]];
    const after = cluster([...grownEdges, ...joinedCliques(1, 4, "other")]);
    const grownBefore = before.find((n) => n.entityKeys.includes("k0-1"))!;
    const { nodes, retired } = continueCommunityIds(after, before, 0.5);

    const grown = nodes.find((n) => n.entityKeys.includes("k0-new"))!;
    expect(grown.entityKeys).toEqual([...grownBefore.entityKeys, "k0-new"].sort());
    expect(grown.id).toBe(grownBefore.id);
    expect(after.find((n) => n.entityKeys.includes("k0-new"))!.id).not.toBe(grownBefore.id);
    const other = nodes.find((n) => n.entityKeys.includes("other0-0"))!;
    expect(other.id).toBe(after.find((n) => n.entityKeys.includes("other0-0"))!.id);
    expect(idsOf(nodes)).toEqual([...idsOf(before), other.id].sort());
    expect(retired).toEqual([]);
  });

  it("links parents and children by their final ids", () => {
    const nodes = [
      node("c0-parent", keys("a", 6), { childIds: ["c1-left", "c1-right"] }),
      node("c1-left", keys("a", 6).slice(0, 4), { level: 1, parentId: "c0-parent" }),
      node("c1-right", keys("a", 6).slice(4), { level: 1, parentId: "c0-parent" }),
    ];
    const previous = [was("c0-before", keys("a", 5)), was("c1-before", keys("a", 6).slice(1, 4), 1)];
    const { nodes: continued } = continueCommunityIds(nodes, previous, 0.5);
    expect(continued).toEqual([
      node("c0-before", keys("a", 6), { childIds: ["c1-before", "c1-right"] }),
      node("c1-before", keys("a", 6).slice(0, 4), { level: 1, parentId: "c0-before" }),
      node("c1-right", keys("a", 6).slice(4), { level: 1, parentId: "c0-before" }),
    ]);
  });

  it("retires a merged-away id with the community that took its members as successor", () => {
    const nodes = [node("c0-merged", [...keys("a", 3), ...keys("b", 2)]), node("c0-elsewhere", ["z1", "z2"])];
    const previous = [was("c0-a", keys("a", 3)), was("c0-b", keys("b", 2)), was("c0-gone", ["y1", "y2"])];
    const { nodes: continued, retired } = continueCommunityIds(nodes, previous, 0.5);
    expect(idsOf(continued)).toEqual(["c0-a", "c0-elsewhere"]);
    expect(retired).toEqual([
      { id: "c0-b", successorId: "c0-a" },
      { id: "c0-gone", successorId: null },
    ]);
  });

  it("suffixes a hash id that an inherited id already took", () => {
    // "c0-x" was minted for {a, b}, and its community has drifted to {c, d, e, f} since: now
    // {c, d, e} keeps "c0-x" while {a, b} comes back under the same hash id.
    const nodes = [node("c0-y", ["c", "d", "e"]), node("c0-x", ["a", "b"])];
    const { nodes: continued } = continueCommunityIds(nodes, [was("c0-x", ["c", "d", "e", "f"])], 0.5);
    expect(continued.map((n) => [n.id, n.entityKeys])).toEqual([
      ["c0-x", ["c", "d", "e"]],
      ["c0-x-2", ["a", "b"]],
    ]);
  });

  it("gives the same ids for the same inputs, whatever their order", () => {
    const nodes = [node("c0-merged", ["a", "b", "c", "d"]), node("c0-rest", ["e", "f"])];
    const previous = [was("c0-p", ["a", "b"]), was("c0-q", ["c", "d"]), was("c0-r", ["e", "f", "g"])];
    const once = continueCommunityIds(nodes, previous, 0.5);
    const again = continueCommunityIds([...nodes].reverse(), [...previous].reverse(), 0.5);
    expect(again).toEqual(once);
    expect(idsOf(once.nodes)).toEqual(["c0-p", "c0-r"]);
  });
});

describe("nextCommunityAliases", () => {
  const live = (...ids: string[]) => new Set(ids);

  it("adds retired ids with a successor, newest first, and follows earlier aliases to live ids", () => {
    const earlier = [
      { id: "c0-old", successorId: "c0-b" },
      { id: "c0-older", successorId: "c0-a" },
    ];
    const retired = [
      { id: "c0-b", successorId: "c0-a" },
      { id: "c0-gone", successorId: null },
    ];
    expect(nextCommunityAliases(earlier, retired, live("c0-a"), 10)).toEqual([
      { id: "c0-b", successorId: "c0-a" },
      { id: "c0-old", successorId: "c0-a" },
      { id: "c0-older", successorId: "c0-a" },
    ]);
  });

  it("drops aliases whose id lives again or whose successor is gone, and keeps at most the limit", () => {
    const earlier = [
      { id: "c0-back", successorId: "c0-a" },
      { id: "c0-orphan", successorId: "c0-vanished" },
      { id: "c0-x", successorId: "c0-a" },
      { id: "c0-y", successorId: "c0-a" },
    ];
    const retired = [{ id: "c0-vanished", successorId: null }];
    expect(nextCommunityAliases(earlier, retired, live("c0-a", "c0-back"), 1)).toEqual([
      { id: "c0-x", successorId: "c0-a" },
    ]);
    expect(nextCommunityAliases(earlier, retired, live("c0-a"), 0)).toEqual([]);
  });
});
