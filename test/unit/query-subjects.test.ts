import { afterEach, describe, expect, it } from "vitest";
import { entityKey } from "../../src/merge/keys.js";
import { rankByPageRank } from "../../src/query/graph/pagerank-ranking.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import type { ResolvedScope } from "../../src/query/graph/scope.js";
import { homeChunks, subjectIndex } from "../../src/query/graph/subjects.js";
import { makeDocument } from "../support/storage-fixtures.js";
import { buildFixture, DIRECTOR, FILM, type Fixture, MULTI_HOP } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const TRIGIANI = entityKey("Adriana Trigiani");

async function rankFromTrigiani(): Promise<string[]> {
  const graph = new QueryGraph(fixture!.services.store, undefined);
  const hits = await rankByPageRank(
    graph,
    { entities: new Map([[TRIGIANI, 1]]), relationships: [] },
    { topK: 40, chunkTopK: 10 },
  );
  return hits.chunks.map((c) => c.id);
}

describe("document subjects (an entity's home passages)", () => {
  it("index documents by the entity their title names, qualifier dropped, file names skipped", () => {
    const index = subjectIndex([
      { id: "d1", title: "Lilu (mythology)" },
      { id: "d2", title: "Lilu" },
      { id: "d3", title: "notes.txt" },
    ]);
    expect(index.get(entityKey("Lilu"))).toEqual(["d1", "d2"]);
    expect([...index.keys()]).toEqual([entityKey("Lilu")]);
  });

  it("give an entity's whole score to the passage whose document is about it", async () => {
    fixture = await buildFixture(MULTI_HOP);
    // Without titles naming it, the walk prefers the director passage (its other entity is a leaf).
    expect((await rankFromTrigiani())[0]).toBe(fixture.chunkOf(DIRECTOR).id);

    // The film document retitled after the entity becomes its home and takes the lead.
    await fixture.services.store.upsertDocument(
      makeDocument("film", { title: "Adriana Trigiani (film)", chunkCount: 1 }),
    );
    const graph = new QueryGraph(fixture.services.store, undefined);
    const homes = await homeChunks(graph, [TRIGIANI, entityKey("Greenwich Village")]);
    expect([...(homes.get(TRIGIANI) ?? [])]).toEqual([fixture.chunkOf(FILM).id]);
    expect(homes.has(entityKey("Greenwich Village"))).toBe(false);
    expect((await rankFromTrigiani())[0]).toBe(fixture.chunkOf(FILM).id);
  });

  it("keep each entity's home chunks for every query of a data generation, and work them out again after a write", async () => {
    fixture = await buildFixture(MULTI_HOP);
    const { store } = fixture.services;
    const homesOf = async (scope?: ResolvedScope) =>
      (await homeChunks(new QueryGraph(store, scope), [TRIGIANI])).get(TRIGIANI);
    await store.upsertDocument(makeDocument("film", { title: "Adriana Trigiani (film)", chunkCount: 1 }));
    const first = await homesOf();
    expect([...(first ?? [])]).toEqual([fixture.chunkOf(FILM).id]);
    // Another query of the same generation is given the same set, not one gathered again.
    expect(await homesOf()).toBe(first);
    // A scoped query keeps its own (its scope may hide chunks).
    const scope: ResolvedScope = {
      entityKeys: new Set([TRIGIANI]),
      relationshipKeys: new Set(),
      chunkIds: new Set(),
    };
    expect([...((await homesOf(scope)) ?? [])]).toEqual([]);
    // Retitled away from the entity: the next query finds no home.
    await store.upsertDocument(makeDocument("film", { title: "Big Stone Gap (film)", chunkCount: 1 }));
    expect(await homesOf()).toBeUndefined();
  });
});
