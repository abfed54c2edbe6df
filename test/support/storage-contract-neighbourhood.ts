import { expect, it } from "vitest";
import { changes, makeEntity, makeRelationship, type StoreOf } from "./storage-fixtures.js";

/** Hub's neighbours are A (5), B (2), C (2); A also reaches B (1) and D (4); C reaches E (3); D reaches Far. */
const WEIGHTED_EDGES: [string, string, number][] = [
  ["Hub", "A", 5],
  ["Hub", "B", 2],
  ["Hub", "C", 2],
  ["A", "B", 1],
  ["A", "D", 4],
  ["C", "E", 3],
  ["D", "Far", 1],
];

const relationships = WEIGHTED_EDGES.map(([a, b, weight]) => makeRelationship(a, b, { weight }));
const keyOf = (a: string, b: string) => makeRelationship(a, b).key;

async function seedWeightedGraph(storeOf: StoreOf) {
  const store = storeOf();
  const names = ["Hub", "A", "B", "C", "D", "E", "Far"];
  await store.applyGraphChanges(
    changes({ upsertEntities: names.map((name) => makeEntity(name)), upsertRelationships: relationships }),
  );
  return store;
}

/** The reads a neighbourhood walk is made of: one hop at a time, then the edges inside the node set. */
export function describeNeighbourhoodReads(storeOf: StoreOf): void {
  it("expands a frontier to its new neighbours, strongest relationship first, ties by key", async () => {
    const store = await seedWeightedGraph(storeOf);
    expect(await store.neighboursOf(["hub"], ["hub"], 10)).toEqual(["a", "b", "c"]);
    expect(await store.neighboursOf(["hub"], ["hub"], 2)).toEqual(["a", "b"]);
    // Known entities are left out, whichever frontier entity they hang off.
    expect(await store.neighboursOf(["hub", "a"], ["hub", "a", "b"], 10)).toEqual(["d", "c"]);
    // A neighbour of several frontier entities ranks by its strongest tie: Hub by A's 5, not C's 2.
    expect(await store.neighboursOf(["a", "c"], ["a", "c"], 10)).toEqual(["hub", "d", "e", "b"]);
    expect(await store.neighboursOf(["nobody"], [], 10)).toEqual([]);
    expect(await store.neighboursOf([], [], 10)).toEqual([]);
    expect(await store.neighboursOf(["hub"], ["hub"], 0)).toEqual([]);
  });

  it("returns the relationships inside a node set, strongest first, up to a limit", async () => {
    const store = await seedWeightedGraph(storeOf);
    const inside = await store.relationshipsAmong(["hub", "a", "b", "d"], 10);
    expect(inside.map((r) => r.key)).toEqual([
      keyOf("Hub", "A"),
      keyOf("A", "D"),
      keyOf("Hub", "B"),
      keyOf("A", "B"),
    ]);
    // Endpoints, weight and description as getRelationships returns them, nothing more.
    const records = await store.getRelationships(inside.map((r) => r.key));
    expect(inside).toEqual(
      records.map(({ key, sourceKey, targetKey, description, weight }) => ({
        key,
        sourceKey,
        targetKey,
        description,
        weight,
      })),
    );
    expect((await store.relationshipsAmong(["hub", "a", "b", "d"], 2)).map((r) => r.key)).toEqual([
      keyOf("Hub", "A"),
      keyOf("A", "D"),
    ]);
    expect(await store.relationshipsAmong(["hub", "far"], 10)).toEqual([]);
    expect(await store.relationshipsAmong([], 10)).toEqual([]);
  });

  it("sees relationships written after an earlier read", async () => {
    const store = await seedWeightedGraph(storeOf);
    expect(await store.neighboursOf(["e"], ["e"], 10)).toEqual(["c"]);
    await store.applyGraphChanges(
      changes({ upsertRelationships: [makeRelationship("E", "Far", { weight: 9 })] }),
    );
    expect(await store.neighboursOf(["e"], ["e"], 10)).toEqual(["far", "c"]);
    expect((await store.relationshipsAmong(["e", "far", "d"], 10)).map((r) => r.key)).toEqual([
      keyOf("E", "Far"),
      keyOf("D", "Far"),
    ]);
  });
}
