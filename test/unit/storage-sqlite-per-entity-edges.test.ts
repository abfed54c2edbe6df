import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteReadCacheSchema } from "../../src/config.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { RelationshipRecord } from "../../src/types.js";
import { changes, makeRelationship } from "../support/storage-fixtures.js";

/** A small deterministic generator (the test must not depend on Math.random). */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    // The low bits of this generator cycle quickly; the high ones do not.
    return (state >>> 12) % n;
  };
}

const entity = (i: number) => `entity ${String(i).padStart(2, "0")}`;

/** A relationship between two entity keys (the fixture puts them in canonical order). */
const edge = (a: string, b: string, weight: number) => makeRelationship(a, b, { weight });

/** 40 entities, entity 00 a hub, a few self-loops, weights that tie. */
function randomGraph(seed: number, count: number): RelationshipRecord[] {
  const next = generator(seed);
  const edges = new Map<string, RelationshipRecord>();
  for (let i = 0; i < count; i++) {
    const a = next(4) === 0 ? 0 : next(40);
    const b = next(9) === 0 ? a : next(40);
    const record = edge(entity(a), entity(b), 1 + next(4));
    edges.set(record.key, record);
  }
  return [...edges.values()];
}

/** Entity sets a query would ask about: single entities, the hub with others, unknown keys. */
function askedSets(seed: number): string[][] {
  const next = generator(seed);
  const sets: string[][] = [[entity(0)], ["no such entity"], [entity(7), entity(7)]];
  for (let i = 0; i < 25; i++) sets.push(Array.from({ length: 1 + next(6) }, () => entity(next(42))));
  return sets;
}

/** Everything the relationship cache answers, for each set, in one comparable object. */
async function answers(store: SqliteGraphStore, sets: string[][]) {
  const out = [];
  for (const keys of sets) {
    out.push({
      relationshipsOf: (await store.relationshipsOf(keys)).map((r) => [r.key, r.weight]),
      edgesOf: (await store.edgesOf(keys)).map((e) => ({ ...e })),
      edgeListsOf: [...(await store.edgeListsOf(keys))].map(([key, list]) => [key, list.map((e) => e.key)]),
      degrees: [...(await store.degrees([...keys, entity(1), entity(2)]))],
      neighbours: await store.neighboursOf(keys, [entity(3)], 5),
      among: await store.relationshipsAmong([...keys, entity(0), entity(5)], 4),
    });
  }
  return out;
}

describe("relationship edges read per entity (a graph above sqliteReadCache.maxWholeGraphEdges)", () => {
  let dir: string;
  let whole: SqliteGraphStore;
  /** Holds at most 12 edges between reads: most calls drop what the last one read. */
  let perEntity: SqliteGraphStore;
  let writer: SqliteGraphStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-per-entity-"));
    writer = await openSqliteStore(dir);
    await writer.applyGraphChanges(changes({ upsertRelationships: randomGraph(3, 160) }));
    whole = await openSqliteStore(dir, {
      readCache: SqliteReadCacheSchema.parse({ walkAdjacencyAfterWalks: 0 }),
    });
    perEntity = await openSqliteStore(dir, {
      readCache: SqliteReadCacheSchema.parse({ maxWholeGraphEdges: 12, walkAdjacencyAfterWalks: 0 }),
    });
  });

  afterAll(async () => {
    await Promise.all([whole, perEntity, writer].map((store) => store?.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it("answers every edge question as the whole graph does, in the same order", async () => {
    const sets = askedSets(5);
    const expected = await answers(whole, sets);
    expect(expected[0]?.edgesOf.length).toBeGreaterThan(12);
    expect(await answers(perEntity, sets)).toEqual(expected);
    // Asked again, from what is held and what has to be read again alike.
    expect(await answers(perEntity, [...sets].reverse())).toEqual([...expected].reverse());
  });

  it("gives walks no numbered graph, so they read edge lists instead of the whole graph", async () => {
    expect(whole.walkAdjacency()).toBeDefined();
    expect(perEntity.walkAdjacency()).toBeUndefined();
  });

  it("follows another connection's changes: new, re-weighted and deleted edges", async () => {
    const sets = askedSets(9);
    await answers(perEntity, sets);
    const current = randomGraph(3, 160);
    const removed = current.filter((_, i) => i % 5 === 0).map((r) => r.key);
    const reweighted = current.filter((_, i) => i % 7 === 1).map((r) => ({ ...r, weight: r.weight + 10 }));
    await writer.applyGraphChanges(
      changes({
        upsertRelationships: [...reweighted, edge(entity(0), entity(41), 2), edge(entity(41), entity(41), 1)],
        deleteRelationshipKeys: removed,
      }),
    );
    expect(await answers(perEntity, [...sets, [entity(41)]])).toEqual(
      await answers(whole, [...sets, [entity(41)]]),
    );
    // An index run ends by pruning the change log: readers start over from SQLite.
    await writer.refreshIndexes();
    await writer.applyGraphChanges(
      changes({
        upsertRelationships: [edge(entity(41), entity(7), 3)],
        deleteRelationshipKeys: [current[1]?.key as string],
      }),
    );
    expect(await answers(perEntity, [...sets, [entity(41)]])).toEqual(
      await answers(whole, [...sets, [entity(41)]]),
    );
    expect(perEntity.walkAdjacency()).toBeUndefined();
  });

  it("switches a held whole graph to per-entity reads when it grows past the cap", async () => {
    const growing = await openSqliteStore(dir, {
      readCache: SqliteReadCacheSchema.parse({ maxWholeGraphEdges: 400, walkAdjacencyAfterWalks: 0 }),
    });
    try {
      expect(growing.walkAdjacency()).toBeDefined();
      const many = Array.from({ length: 300 }, (_, i) => edge(`extra ${i}`, entity(i % 40), 1));
      await writer.applyGraphChanges(changes({ upsertRelationships: many }));
      expect(growing.walkAdjacency()).toBeUndefined();
      const sets = askedSets(13);
      expect(await answers(growing, sets)).toEqual(await answers(whole, sets));
    } finally {
      await growing.close();
    }
  });
});
