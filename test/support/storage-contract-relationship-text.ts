import { expect, it } from "vitest";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { changes, makeEntity, makeRelationship, type StoreOf, seedDocument } from "./storage-fixtures.js";

const ALICE_ACME = makeRelationship("Alice", "Acme Corp", {
  keywords: ["employment"],
  description: "Alice works for Acme Corp as an engineer.",
});
const BOB_ACME = makeRelationship("Bob", "Acme Corp", {
  keywords: ["founding"],
  description: "Bob founded the company in 1999.",
});
const ALICE_BOB = makeRelationship("Alice", "Bob", {
  keywords: ["friendship"],
  description: "They met at university.",
});
const TENCENT_SHENZHEN = makeRelationship("腾讯", "深圳", {
  keywords: ["总部"],
  description: "腾讯公司总部位于深圳",
});

async function seedRelationships(store: GraphStore): Promise<void> {
  const [chunk] = await seedDocument(store, "d1", ["text"]);
  await store.commitChunkMerge(
    chunk!.id,
    { entities: [], relationships: [] },
    changes({
      upsertEntities: ["Alice", "Bob", "Acme Corp", "腾讯", "深圳"].map((name) => makeEntity(name)),
      upsertRelationships: [ALICE_ACME, BOB_ACME, ALICE_BOB, TENCENT_SHENZHEN],
    }),
  );
}

async function keysFor(store: GraphStore, query: string, topK = 10, allow?: Set<string>) {
  return (await store.searchRelationshipText(query, topK, allow)).map((hit) => hit.id);
}

export function describeRelationshipText(storeOf: StoreOf): void {
  it("finds relationships by endpoint names, keywords and description, best first", async () => {
    const store = storeOf();
    expect(await keysFor(store, "Acme")).toEqual([]);
    await seedRelationships(store);
    const acme = await store.searchRelationshipText("Acme", 10);
    // Alice-Acme names Acme in its description too, so it ranks above Bob-Acme.
    expect(acme.map((hit) => hit.id)).toEqual([ALICE_ACME.key, BOB_ACME.key]);
    expect(acme[0]!.score).toBeGreaterThan(acme[1]!.score);
    expect(acme[1]!.score).toBeGreaterThan(0);
    expect((await keysFor(store, "bob")).sort()).toEqual([ALICE_BOB.key, BOB_ACME.key].sort());
    expect(await keysFor(store, "friendship")).toEqual([ALICE_BOB.key]);
    expect(await keysFor(store, "university")).toEqual([ALICE_BOB.key]);
    expect(await keysFor(store, "engineer", 1)).toEqual([ALICE_ACME.key]);
  });

  it("scores with FTS5's BM25: a word in most relationships adds next to nothing", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    const repeats = makeRelationship("Ann", "Ben", {
      keywords: [],
      description: "merger merger merger merger",
    });
    const once = makeRelationship("Cal", "Dee", { keywords: [], description: "merger" });
    const rare = makeRelationship("Eve", "Fay", {
      keywords: [],
      description: "rivalry between two long established family businesses in town",
    });
    await store.commitChunkMerge(
      chunk!.id,
      { entities: [], relationships: [] },
      changes({
        upsertEntities: ["Ann", "Ben", "Cal", "Dee", "Eve", "Fay"].map((name) => makeEntity(name)),
        upsertRelationships: [repeats, once, rare],
      }),
    );
    const hits = await store.searchRelationshipText("merger rivalry", 10);
    expect(hits.map((h) => h.id)).toEqual([rare.key, repeats.key, once.key]);
    expect(hits[0]!.score).toBeGreaterThan(0.1);
    expect(hits[1]!.score).toBeLessThan(1e-4);
  });

  it("filters candidates with `allow` before taking the top k", async () => {
    const store = storeOf();
    await seedRelationships(store);
    expect(await keysFor(store, "Acme", 1, new Set([BOB_ACME.key, ALICE_BOB.key]))).toEqual([BOB_ACME.key]);
    expect(await keysFor(store, "Acme", 5, new Set([ALICE_BOB.key]))).toEqual([]);
    expect(await keysFor(store, "Acme", 5, new Set())).toEqual([]);
  });

  it("finds Chinese relationships by a word of an endpoint or an unspaced description", async () => {
    const store = storeOf();
    await seedRelationships(store);
    expect(await keysFor(store, "深圳")).toEqual([TENCENT_SHENZHEN.key]);
    expect(await keysFor(store, "腾讯总部在哪里？")).toEqual([TENCENT_SHENZHEN.key]);
  });

  it("follows updates and deletes of relationships", async () => {
    const store = storeOf();
    await seedRelationships(store);
    const moved = { ...ALICE_ACME, keywords: ["resignation"], description: "Alice left to join Globex." };
    await store.applyGraphChanges(changes({ upsertRelationships: [moved] }));
    expect(await keysFor(store, "engineer")).toEqual([]);
    expect(await keysFor(store, "globex resignation")).toEqual([ALICE_ACME.key]);
    await store.applyGraphChanges(changes({ deleteRelationshipKeys: [BOB_ACME.key] }));
    expect(await keysFor(store, "founding")).toEqual([]);
    expect(await keysFor(store, "Acme")).toEqual([ALICE_ACME.key]);
  });

  it("treats operators and punctuation as plain text and finds nothing for an empty query", async () => {
    const store = storeOf();
    await seedRelationships(store);
    expect(await keysFor(store, 'university" OR (')).toEqual([ALICE_BOB.key]);
    expect(await keysFor(store, "?!*()\"'")).toEqual([]);
    expect(await keysFor(store, "")).toEqual([]);
    expect(await keysFor(store, "university", 0)).toEqual([]);
  });
}
