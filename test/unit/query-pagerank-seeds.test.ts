import { afterEach, describe, expect, it } from "vitest";
import { type RankingConfig, RankingSchema } from "../../src/config.js";
import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import { rankByPageRank } from "../../src/query/graph/pagerank-ranking.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import { buildFixture, type Fixture } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const SPECS = [
  { doc: "a", text: "Alpha works with Beta.", entities: ["Alpha", "Beta"], pairs: [["Alpha", "Beta"]] },
  { doc: "h", text: "Hub meets Xeno.", entities: ["Hub", "Xeno"], pairs: [["Hub", "Xeno"]] },
] as { doc: string; text: string; entities: string[]; pairs: [string, string][] }[];

async function rankedEntities(hubWeight: number, ranking?: RankingConfig): Promise<string[]> {
  fixture = await buildFixture(SPECS);
  const graph = new QueryGraph(fixture.services.store, undefined);
  const seeds = new Map([
    [entityKey("Alpha"), 1],
    [entityKey("Hub"), hubWeight],
  ]);
  const hits = await rankByPageRank(
    graph,
    { entities: seeds, relationships: [] },
    { topK: 10, chunkTopK: 10, ranking },
  );
  return hits.entities.map((e) => e.id);
}

describe("PageRank seed expansion", () => {
  it("walks from every seed of comparable weight", async () => {
    expect(await rankedEntities(0.5)).toContain(entityKey("Xeno"));
  });

  it("does not expand a seed far weaker than the strongest (a hub's edges carry too little to rank)", async () => {
    const ranked = await rankedEntities(0.001);
    expect(ranked).toContain(entityKey("Hub"));
    expect(ranked).not.toContain(entityKey("Xeno"));
    expect(ranked).toContain(entityKey("Beta"));
  });

  it("takes the share from config query.ranking.expandedSeedShare", async () => {
    const strict = RankingSchema.parse({ expandedSeedShare: 0.9 });
    expect(await rankedEntities(0.5, strict)).not.toContain(entityKey("Xeno"));
  });
});

describe("PageRank over the store's numbered graph", () => {
  const WEB = [
    {
      doc: "a",
      text: "Alpha works with Beta and Gamma.",
      entities: ["Alpha", "Beta", "Gamma"],
      pairs: [
        ["Alpha", "Beta"],
        ["Alpha", "Gamma"],
      ],
    },
    { doc: "b", text: "Beta knows Delta.", entities: ["Beta", "Delta"], pairs: [["Beta", "Delta"]] },
    {
      doc: "c",
      text: "Gamma and Delta meet Epsilon.",
      entities: ["Gamma", "Delta", "Epsilon"],
      pairs: [
        ["Gamma", "Epsilon"],
        ["Delta", "Epsilon"],
      ],
    },
    {
      doc: "d",
      text: "Epsilon hosts Zeta, Eta and Theta.",
      entities: ["Epsilon", "Zeta", "Eta", "Theta"],
      pairs: [
        ["Epsilon", "Zeta"],
        ["Epsilon", "Eta"],
        ["Epsilon", "Theta"],
        ["Zeta", "Eta"],
      ],
    },
    { doc: "e", text: "Theta alone.", entities: ["Theta", "Iota"], pairs: [["Theta", "Iota"]] },
  ] as { doc: string; text: string; entities: string[]; pairs: [string, string][] }[];

  it("ranks entities, relationships and chunks exactly as the walk over edge objects", async () => {
    fixture = await buildFixture(WEB, { config: { sqliteReadCache: { walkAdjacencyAfterWalks: 0 } } });
    const { store } = fixture.services;
    expect(store.walkAdjacency?.()).toBeDefined();
    // The same store without its numbered graph: the walk reads edge objects through edgesOf.
    const withoutNumbers = new Proxy(store, {
      get: (target, name) => (name === "walkAdjacency" ? undefined : Reflect.get(target, name, target)),
    });
    const seeds = {
      entities: new Map([
        [entityKey("Alpha"), 1],
        [entityKey("Iota"), 0.4],
        [entityKey("Nobody"), 0.2],
      ]),
      relationships: [{ id: relationshipKey(entityKey("Delta"), entityKey("Epsilon")), score: 0.7 }],
    };
    const limits = { topK: 4, chunkTopK: 3 };
    const numbered = await rankByPageRank(new QueryGraph(store, undefined), seeds, limits);
    const fromEdges = await rankByPageRank(new QueryGraph(withoutNumbers, undefined), seeds, limits);
    expect(numbered.entities.length).toBe(4);
    expect(numbered.relationships.length).toBe(4);
    expect(numbered).toEqual(fromEdges);
  });
});
