import { describe, expect, it } from "vitest";
import { relationshipKey } from "../../src/merge/keys.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import type { ResolvedScope } from "../../src/query/graph/scope.js";
import type { GraphEdge, GraphStore } from "../../src/storage/graph-store.js";
import type { RelationshipRecord } from "../../src/types.js";

function rel(a: string, b: string, weight = 1): RelationshipRecord {
  return {
    key: relationshipKey(a, b),
    sourceKey: a,
    targetKey: b,
    description: `${a}-${b}`,
    fragments: [],
    keywords: [],
    weight,
    sourceChunkIds: [],
    fragmentsHash: "",
    needsSummary: false,
  };
}

const RELS = [rel("a", "b", 2), rel("a", "c"), rel("b", "c", 3)];
const touching = (keys: string[]) =>
  RELS.filter((r) => keys.includes(r.sourceKey) || keys.includes(r.targetKey));
const bare = (r: GraphEdge): GraphEdge => ({
  key: r.key,
  sourceKey: r.sourceKey,
  targetKey: r.targetKey,
  weight: r.weight,
});

describe("QueryGraph.edgesOf", () => {
  it("gives the edges relationshipsOf gives, from a store with edgesOf or without it", async () => {
    const withEdges = {
      relationshipsOf: async (k: string[]) => touching(k),
      edgesOf: async (k: string[]) => touching(k).map(bare),
    };
    const withoutEdges = { relationshipsOf: async (k: string[]) => touching(k) };
    for (const store of [withEdges, withoutEdges]) {
      const graph = new QueryGraph(store as unknown as GraphStore, undefined);
      const edges = await graph.edgesOf(["c", "a"]);
      expect(edges.map(bare)).toEqual((await graph.relationshipsOf(["c", "a"])).map(bare));
      expect(edges.map((e) => e.key)).toEqual([rel("a", "c").key, rel("b", "c").key, rel("a", "b").key]);
    }
  });

  it("leaves out relationships outside the scope", async () => {
    const store = {
      relationshipsOf: async (k: string[]) => touching(k),
      edgesOf: async (k: string[]) => touching(k).map(bare),
    };
    const scope = { relationshipKeys: new Set([rel("a", "b").key]) } as unknown as ResolvedScope;
    const graph = new QueryGraph(store as unknown as GraphStore, scope);
    expect((await graph.edgesOf(["a"])).map((e) => e.key)).toEqual([rel("a", "b").key]);
  });
});

describe("QueryGraph.edgesOf from a store with edgeListsOf", () => {
  const listsOf = async (keys: string[]) => new Map(keys.map((k) => [k, touching([k]).map(bare)] as const));

  it("gives the edges of edgesOf, in its order, each once", async () => {
    const withLists = { edgeListsOf: listsOf, relationshipsOf: async (k: string[]) => touching(k) };
    const graph = new QueryGraph(withLists as unknown as GraphStore, undefined);
    expect((await graph.edgesOf(["c", "a"])).map((e) => e.key)).toEqual([
      rel("a", "c").key,
      rel("b", "c").key,
      rel("a", "b").key,
    ]);
    expect((await graph.edgesOf(["zzz"])).map((e) => e.key)).toEqual([]);
  });

  it("leaves out relationships outside the scope", async () => {
    const scope = { relationshipKeys: new Set([rel("a", "b").key]) } as unknown as ResolvedScope;
    const graph = new QueryGraph({ edgeListsOf: listsOf } as unknown as GraphStore, scope);
    expect((await graph.edgesOf(["a", "c"])).map((e) => e.key)).toEqual([rel("a", "b").key]);
  });
});
