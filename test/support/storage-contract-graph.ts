import { expect, it } from "vitest";
import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import {
  changes,
  entityMention,
  historyEntry,
  makeEntity,
  makeRelationship,
  mergeChunk,
  relationshipMention,
  type StoreOf,
  seedDocument,
} from "./storage-fixtures.js";

export function describeMerge(storeOf: StoreOf): void {
  it("commits a chunk merge: mentions, records, history and merged state together", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["Acme hired Bob"]);
    await mergeChunk(store, chunk!.id, ["Acme", "Bob"], [["Bob", "Acme"]]);

    expect((await store.getChunkStates("d1"))[0]?.status).toBe("merged");
    expect(await store.getEntities([entityKey("Acme")])).toEqual([
      makeEntity("Acme", { sourceChunkIds: [chunk!.id] }),
    ]);
    expect(await store.getRelationships([relationshipKey("acme", "bob")])).toEqual([
      makeRelationship("Bob", "Acme", { sourceChunkIds: [chunk!.id] }),
    ]);
    const mentions = await store.getChunkMentions([chunk!.id]);
    expect(mentions.entities).toEqual(expect.arrayContaining([entityMention("Acme", chunk!.id)]));
    expect(mentions.relationships).toEqual([relationshipMention("Bob", "Acme", chunk!.id)]);
    expect(await store.getRelationshipMentions([relationshipKey("acme", "bob")])).toHaveLength(1);
    expect((await store.listHistory()).map((h) => h.key)).toEqual(["acme", "bob"]);
    expect(await store.counts()).toMatchObject({ documents: 1, chunks: 1, entities: 2, relationships: 1 });
  });

  it("keeps provenance per chunk and replaces a chunk's mentions when it is merged again", async () => {
    const store = storeOf();
    const [c1, c2] = await seedDocument(store, "d1", ["Acme one", "Acme two"]);
    await mergeChunk(store, c1!.id, ["Acme"]);
    const both = makeEntity("Acme", { sourceChunkIds: [c1!.id, c2!.id] });
    await store.commitChunkMerge(
      c2!.id,
      { entities: [entityMention("Acme", c2!.id)], relationships: [] },
      changes({ upsertEntities: [both] }),
    );
    await store.commitChunkMerge(
      c2!.id,
      { entities: [entityMention("Acme", c2!.id)], relationships: [] },
      changes({ upsertEntities: [both] }),
    );

    expect((await store.getEntities(["acme"]))[0]?.sourceChunkIds.sort()).toEqual([c1!.id, c2!.id].sort());
    const mentions = await store.getEntityMentions(["acme"]);
    expect(mentions.map((m) => m.chunkId).sort()).toEqual([c1!.id, c2!.id].sort());
    expect((await store.getChunkMentions([c2!.id])).entities).toEqual([entityMention("Acme", c2!.id)]);
  });

  it("leaves nothing behind when a chunk merge is rejected half-way", async () => {
    const store = storeOf();
    const [c1, c2] = await seedDocument(store, "d1", ["Acme one", "Beta two"]);
    await mergeChunk(store, c1!.id, ["Acme"]);
    const countsBefore = await store.counts();
    const historyBefore = await store.listHistory();
    // Valid mentions and entities first, then a relationship whose key is not canonical.
    const broken = { ...makeRelationship("Beta", "Gamma"), sourceKey: "gamma", targetKey: "beta" };
    const rejected = store.commitChunkMerge(
      c2!.id,
      {
        entities: [entityMention("Beta", c2!.id)],
        relationships: [relationshipMention("Beta", "Gamma", c2!.id)],
      },
      changes({
        upsertEntities: [makeEntity("Beta"), makeEntity("Gamma")],
        upsertRelationships: [broken],
        history: [historyEntry("beta", "merge")],
      }),
    );
    await expect(rejected).rejects.toThrow();

    expect(await store.counts()).toEqual(countsBefore);
    expect(await store.listHistory()).toEqual(historyBefore);
    expect(await store.getEntities(["beta", "gamma"])).toEqual([]);
    expect(await store.getChunkMentions([c2!.id])).toEqual({ entities: [], relationships: [] });
    expect((await store.getChunkStates("d1")).find((s) => s.chunkId === c2!.id)?.status).toBe("pending");
    await expect(
      store.applyGraphChanges(
        changes({ upsertEntities: [makeEntity("Delta")], upsertRelationships: [broken] }),
      ),
    ).rejects.toThrow();
    expect(await store.getEntities(["delta"])).toEqual([]);
  });

  it("rejects a merge for a chunk that is not stored", async () => {
    const store = storeOf();
    await expect(
      store.commitChunkMerge(
        "nope",
        { entities: [], relationships: [] },
        changes({ upsertEntities: [makeEntity("Acme")] }),
      ),
    ).rejects.toThrow();
    expect((await store.counts()).entities).toBe(0);
  });

  it("applies updates and deletes, and lists records needing a summary", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    await mergeChunk(
      store,
      chunk!.id,
      ["Acme", "Bob", "Carl"],
      [
        ["Acme", "Bob"],
        ["Bob", "Carl"],
      ],
    );
    await store.applyGraphChanges(
      changes({
        upsertEntities: [makeEntity("Acme", { description: "long", needsSummary: true })],
        upsertRelationships: [makeRelationship("Acme", "Bob", { needsSummary: true, weight: 7 })],
        deleteEntityKeys: ["carl"],
        deleteRelationshipKeys: [relationshipKey("bob", "carl")],
      }),
    );
    expect((await store.entitiesNeedingSummary()).map((e) => e.key)).toEqual(["acme"]);
    expect((await store.relationshipsNeedingSummary()).map((r) => r.weight)).toEqual([7]);
    expect((await store.listEntities()).map((e) => e.key).sort()).toEqual(["acme", "bob"]);
    expect((await store.listRelationships()).map((r) => r.key)).toEqual([relationshipKey("acme", "bob")]);
  });

  it("keeps an entity's aliases, and drops them when a later version has none", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    await mergeChunk(store, chunk!.id, ["Ebenezer Scrooge", "Fred"], []);
    const scrooge = makeEntity("Ebenezer Scrooge", { aliases: ["MR. SCROOGE", "SCROOGE"] });
    await store.applyGraphChanges(changes({ upsertEntities: [scrooge] }));
    expect(await store.getEntities([scrooge.key])).toEqual([scrooge]);
    expect((await store.listEntities()).find((e) => e.key === scrooge.key)?.aliases).toEqual(scrooge.aliases);
    expect((await store.listEntities()).find((e) => e.key === "fred")).not.toHaveProperty("aliases");
    const { aliases: _dropped, ...plain } = scrooge;
    await store.applyGraphChanges(changes({ upsertEntities: [plain] }));
    expect(await store.getEntities([scrooge.key])).toEqual([plain]);
  });
}

export function describeGraphReads(storeOf: StoreOf): void {
  it("finds the relationships and degrees of entities", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    await mergeChunk(
      store,
      chunk!.id,
      ["A", "B", "C", "D"],
      [
        ["A", "B"],
        ["C", "A"],
        ["C", "D"],
      ],
    );
    const ofA = await store.relationshipsOf(["a"]);
    expect(ofA.map((r) => r.key).sort()).toEqual(
      [relationshipKey("a", "b"), relationshipKey("a", "c")].sort(),
    );
    expect((await store.relationshipsOf(["b", "d"])).length).toBe(2);
    const degrees = await store.degrees(["a", "b", "c", "unknown"]);
    expect(degrees.get("a")).toBe(2);
    expect(degrees.get("b")).toBe(1);
    expect(degrees.get("c")).toBe(2);
    expect(degrees.get("unknown") ?? 0).toBe(0);
    expect(await store.getEntities(["missing"])).toEqual([]);
  });
}

export function describeScopeAndDelete(storeOf: StoreOf): void {
  it("resolves document and metadata scopes to chunk ids", async () => {
    const store = storeOf();
    const en = await seedDocument(store, "d1", ["one", "two"], { lang: "en", year: 2020, draft: true });
    const zh = await seedDocument(store, "d2", ["三"], { lang: "zh", year: 2021 });
    const ids = (chunks: { id: string }[]) => new Set(chunks.map((c) => c.id));
    expect(await store.chunkIdsInScope({})).toEqual(ids([...en, ...zh]));
    expect(await store.chunkIdsInScope({ docIds: ["d2"] })).toEqual(ids(zh));
    expect(await store.chunkIdsInScope({ metadata: { lang: "en" } })).toEqual(ids(en));
    expect(await store.chunkIdsInScope({ metadata: { year: "2021" } })).toEqual(ids(zh));
    expect(await store.chunkIdsInScope({ metadata: { draft: "true" } })).toEqual(ids(en));
    expect(await store.chunkIdsInScope({ docIds: ["d1"], metadata: { lang: "zh" } })).toEqual(new Set());
    expect(await store.chunkIdsInScope({ docIds: [] })).toEqual(new Set());
  });

  it("deletes documents with their chunk data and returns the keys that lost mentions", async () => {
    const store = storeOf();
    const [gone] = await seedDocument(store, "d1", ["Acme works with Bob in Zurich"]);
    const [stays] = await seedDocument(store, "d2", ["Acme is in Berlin"]);
    await mergeChunk(store, gone!.id, ["Acme", "Bob"], [["Acme", "Bob"]]);
    await mergeChunk(store, stays!.id, ["Acme"]);
    await store.upsertVectors("chunks", [
      { id: gone!.id, vector: [1, 0], textHash: "g" },
      { id: stays!.id, vector: [0, 1], textHash: "s" },
    ]);

    const affected = await store.deleteDocuments(["d1", "never-stored"]);
    expect(affected.entityKeys.sort()).toEqual(["acme", "bob"]);
    expect(affected.relationshipKeys).toEqual([relationshipKey("acme", "bob")]);

    expect(await store.getDocument("d1")).toBeUndefined();
    expect(await store.listChunks("d1")).toEqual([]);
    expect(await store.getChunkStates("d1")).toEqual([]);
    expect(await store.getChunkMentions([gone!.id])).toEqual({ entities: [], relationships: [] });
    expect((await store.getEntityMentions(["acme"])).map((m) => m.chunkId)).toEqual([stays!.id]);
    expect(await store.searchChunkText("Zurich", 5)).toEqual([]);
    expect([...(await store.vectorHashes("chunks")).keys()]).toEqual([stays!.id]);
    expect((await store.searchChunkText("Berlin", 5)).map((h) => h.id)).toEqual([stays!.id]);
    // Re-folding is the caller's job: the store keeps the entities until told otherwise.
    expect((await store.getEntities(["acme", "bob"])).length).toBe(2);
    expect(await store.counts()).toMatchObject({ documents: 1, chunks: 1 });
  });
}
