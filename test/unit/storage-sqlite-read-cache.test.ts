import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteReadCacheSchema } from "../../src/config.js";
import { relationshipKey } from "../../src/merge/keys.js";
import {
  RELATIONSHIP_CHANGES_PRUNED_KEY as PRUNED,
  SCHEMA_VERSION_KEY,
} from "../../src/storage/sqlite/schema.js";
import { openSqliteStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import type { CommunityRecord, EntityRecord, GraphChanges, RelationshipRecord } from "../../src/types.js";
import { makeChunk, makeDocument, makeEntity } from "../support/storage-fixtures.js";

const tempDirs: string[] = [];

async function tempWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-read-cache-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const vector = (x: number) => [x, 1 - x, 0.5];

function edge(a: string, b: string, weight = 1): RelationshipRecord {
  const [sourceKey, targetKey] = a <= b ? [a, b] : [b, a];
  return {
    key: relationshipKey(sourceKey, targetKey),
    sourceKey,
    targetKey,
    description: `${a} and ${b}`,
    fragments: [`${a} and ${b}`],
    keywords: ["k"],
    weight,
    sourceChunkIds: ["c1"],
    fragmentsHash: "h",
    needsSummary: false,
  };
}

function entityChanges(upsert: EntityRecord[], remove: string[] = []): GraphChanges {
  return {
    upsertEntities: upsert,
    upsertRelationships: [],
    deleteEntityKeys: remove,
    deleteRelationshipKeys: [],
    history: [],
  };
}

function changes(upsert: RelationshipRecord[], remove: string[] = []): GraphChanges {
  return {
    upsertEntities: [],
    upsertRelationships: upsert,
    deleteEntityKeys: [],
    deleteRelationshipKeys: remove,
    history: [],
  };
}

describe("SQLite read caches (documents, vector hashes, vector matrices)", () => {
  it("sees this connection's writes at once", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    await store.upsertDocument(makeDocument("a"));
    expect((await store.listDocuments()).map((d) => d.id)).toEqual(["a"]);
    expect((await store.getDocument("a"))?.status).not.toBe("failed");
    await store.setDocumentStatus("a", "failed", "boom");
    expect((await store.listDocuments())[0]?.status).toBe("failed");
    expect((await store.getDocument("a"))?.status).toBe("failed");
    await store.upsertVectors("chunks", [{ id: "c1", textHash: "h1", vector: vector(0.1) }]);
    expect(await store.vectorHashes("chunks")).toEqual(new Map([["c1", "h1"]]));
    await store.upsertVectors("chunks", [{ id: "c1", textHash: "h2", vector: vector(0.9) }]);
    expect(await store.vectorHashes("chunks")).toEqual(new Map([["c1", "h2"]]));
    await store.close();
  });

  it("sees another connection's commits", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await writer.upsertDocument(makeDocument("a"));
    await writer.upsertVectors("chunks", [{ id: "c1", textHash: "h1", vector: vector(0.1) }]);
    expect((await reader.listDocuments()).map((d) => d.id)).toEqual(["a"]);
    expect(await reader.getDocument("b")).toBeUndefined();
    expect((await reader.searchVectors("chunks", vector(0.1), 5)).map((hit) => hit.id)).toEqual(["c1"]);
    await writer.upsertDocument(makeDocument("b"));
    expect((await reader.getDocument("b"))?.id).toBe("b");
    await writer.upsertVectors("chunks", [{ id: "c2", textHash: "h2", vector: vector(0.9) }]);
    expect((await reader.listDocuments()).map((d) => d.id).sort()).toEqual(["a", "b"]);
    expect((await reader.searchVectors("chunks", vector(0.9), 1)).map((hit) => hit.id)).toEqual(["c2"]);
    expect([...(await reader.vectorHashes("chunks")).keys()].sort()).toEqual(["c1", "c2"]);
    await reader.close();
    await writer.close();
  });

  it("hands out copies, so a caller's edits never reach the cache", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    await store.upsertDocument(makeDocument("a", { metadata: { lang: "en" } }));
    await store.upsertVectors("chunks", [{ id: "c1", textHash: "h1", vector: vector(0.1) }]);
    const [first] = await store.listDocuments();
    if (!first) throw new Error("document missing");
    first.title = "changed";
    first.metadata.lang = "fr";
    (await store.vectorHashes("chunks")).set("c1", "tampered");
    const [again] = await store.listDocuments();
    expect(again?.title).not.toBe("changed");
    expect(again?.metadata.lang).toBe("en");
    const one = await store.getDocument("a");
    if (!one) throw new Error("document missing");
    one.title = "changed";
    one.metadata.lang = "fr";
    expect((await store.getDocument("a"))?.title).not.toBe("changed");
    expect((await store.getDocument("a"))?.metadata.lang).toBe("en");
    expect((await store.vectorHashes("chunks")).get("c1")).toBe("h1");
    await store.close();
  });

  it("keeps relationshipsOf and degrees in step with writes from this and other connections", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(changes([edge("a", "b"), edge("a", "c"), edge("a", "a")]));
    expect((await reader.relationshipsOf(["a"])).map((r) => r.key)).toEqual(
      [edge("a", "a"), edge("a", "b"), edge("a", "c")].map((r) => r.key).sort(),
    );
    expect(await reader.degrees(["a", "b", "zzz"])).toEqual(
      new Map([
        ["a", 3],
        ["b", 1],
        ["zzz", 0],
      ]),
    );
    const [first] = await reader.relationshipsOf(["b"]);
    first?.sourceChunkIds.push("tampered");
    expect((await reader.relationshipsOf(["b"]))[0]?.sourceChunkIds).toEqual(["c1"]);

    await writer.applyGraphChanges(changes([edge("b", "c", 7)], [edge("a", "c").key]));
    expect((await reader.relationshipsOf(["c"])).map((r) => [r.key, r.weight])).toEqual([
      [edge("b", "c").key, 7],
    ]);
    expect((await reader.degrees(["a", "b"])).get("a")).toBe(2);
    await reader.applyGraphChanges(changes([], [edge("a", "b").key]));
    expect((await reader.degrees(["b"])).get("b")).toBe(1);
    await reader.close();
    await writer.close();
  });

  it("gives cachedRelationships the records of getRelationships, copies, in step with other connections' commits", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(changes([edge("a", "b"), edge("a", "c")]));
    const keys = [edge("a", "c").key, "missing", edge("a", "b").key, edge("a", "c").key];
    expect(await reader.cachedRelationships(keys)).toEqual(await reader.getRelationships(keys));
    const [first] = await reader.cachedRelationships([edge("a", "b").key]);
    first?.keywords.push("tampered");
    expect((await reader.cachedRelationships([edge("a", "b").key]))[0]?.keywords).toEqual(["k"]);

    await writer.applyGraphChanges(changes([edge("a", "b", 5)], [edge("a", "c").key]));
    expect((await reader.cachedRelationships(keys)).map((r) => [r.key, r.weight])).toEqual([
      [edge("a", "b").key, 5],
    ]);
    await reader.close();
    await writer.close();
  });

  it("numbers edges and their endpoints for good, across other connections' commits, out of JSON's sight", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(changes([edge("a", "b"), edge("a", "c")]));
    const before = await reader.edgesOf(["a"]);
    await writer.applyGraphChanges(changes([edge("a", "b", 5), edge("b", "d")]));
    const after = await reader.edgesOf(["a", "b"]);
    const ordinals = (edges: typeof after) => new Map(edges.map((e) => [e.key, e.ordinals]));
    const was = ordinals(before);
    const now = ordinals(after);
    expect(now.get(edge("a", "b").key)).toEqual(was.get(edge("a", "b").key));
    expect(now.get(edge("a", "c").key)).toEqual(was.get(edge("a", "c").key));
    const ab = now.get(edge("a", "b").key);
    const bd = now.get(edge("b", "d").key);
    expect(new Set([...now.values()].map((o) => o?.edge)).size).toBe(3);
    expect(bd?.source).toBe(ab?.target);
    expect(JSON.parse(JSON.stringify(after[0]))).toEqual({ ...after[0] });
    expect(Object.keys(after[0] ?? {})).toEqual(["key", "sourceKey", "targetKey", "weight"]);
    await reader.close();
    await writer.close();
  });

  it("catches up on another connection's relationship commits from the change log, also after the log is pruned", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const entities = ["a", "b", "c", "d", "e", "f", "hub"];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = () => entities[random(entities.length)] as string;
    const seen = async (store: typeof reader) => ({
      touching: (await store.relationshipsOf(entities)).map((r) => [r.key, r.weight, r.description]),
      degrees: [...(await store.degrees(entities))],
      neighbours: await store.neighboursOf(["hub"], ["hub"], 10),
      among: (await store.relationshipsAmong(entities, 100)).map((r) => [r.key, r.weight, r.description]),
      edges: await store.edgesOf(entities),
    });
    for (let round = 0; round < 12; round++) {
      const upserts = Array.from({ length: 4 }, () => ({
        ...edge(pick(), random(2) ? "hub" : pick(), 1 + random(9)),
        description: `round ${round}`,
      }));
      const removals = Array.from({ length: random(3) }, () => edge(pick(), pick()).key);
      await writer.applyGraphChanges(changes(upserts, removals));
      // A writer empties the log after its run; a reader older than that must still end up right.
      if (round % 5 === 4) await writer.refreshIndexes();
      const fresh = await openSqliteStore(workspace);
      expect(await seen(reader)).toEqual(await seen(fresh));
      await fresh.close();
    }
    await reader.close();
    await writer.close();
  });

  it("keeps change ids rising through the upgrade from the AUTOINCREMENT log and through pruning", async () => {
    const workspace = await tempWorkspace();
    const first = await openSqliteStore(workspace);
    await first.applyGraphChanges(changes([edge("a", "b"), edge("b", "c")]));
    await first.close();
    // The file as schema 6 left it after a pruned run: an empty AUTOINCREMENT log that had handed out 500 ids.
    const db = new Database(sqliteFile(workspace));
    db.exec(`
      DROP TRIGGER relationships_log_insert; DROP TRIGGER relationships_log_update; DROP TRIGGER relationships_log_delete;
      DROP TABLE relationship_changes;
      CREATE TABLE relationship_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL);
      INSERT INTO relationship_changes (id, key) VALUES (500, 'x');
      DELETE FROM relationship_changes;
      CREATE TRIGGER relationships_log_insert AFTER INSERT ON relationships
      BEGIN INSERT INTO relationship_changes (key) VALUES (new.key); END;
      CREATE TRIGGER relationships_log_update AFTER UPDATE ON relationships
      BEGIN INSERT INTO relationship_changes (key) VALUES (new.key); END;
      CREATE TRIGGER relationships_log_delete AFTER DELETE ON relationships
      BEGIN INSERT INTO relationship_changes (key) VALUES (old.key); END;`);
    db.prepare("UPDATE meta SET value = '6' WHERE key = ?").run(SCHEMA_VERSION_KEY);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '500')").run(PRUNED);
    db.close();

    const reader = await openSqliteStore(workspace);
    expect((await reader.relationshipsOf(["b"])).map((r) => r.key)).toHaveLength(2);
    const writer = await openSqliteStore(workspace);
    await writer.applyGraphChanges(changes([edge("c", "d", 3)]));
    const logged = () => {
      const file = new Database(sqliteFile(workspace), { readonly: true });
      const ids = file.prepare("SELECT id FROM relationship_changes ORDER BY id").pluck().all() as number[];
      const ddl = file
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'relationship_changes'")
        .pluck()
        .get();
      const autoincrement = String(ddl).includes("AUTOINCREMENT");
      const pruned = file.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(PRUNED);
      file.close();
      return { ids, autoincrement, pruned };
    };
    expect(logged()).toEqual({ ids: [500, 501], autoincrement: false, pruned: "500" });
    // The reader sees the change logged under the new schema.
    expect((await reader.relationshipsOf(["c"])).map((r) => [r.key, r.weight])).toEqual([
      [edge("b", "c").key, 1],
      [edge("c", "d").key, 3],
    ]);
    // A pruned log keeps its newest row, so the next change still gets a higher id; the mark of
    // how far it was pruned never goes back (a prune with nothing older to drop leaves it).
    await writer.refreshIndexes();
    expect(logged()).toMatchObject({ ids: [501], pruned: "500" });
    await writer.refreshIndexes();
    expect(logged()).toMatchObject({ ids: [501], pruned: "500" });
    await writer.applyGraphChanges(changes([], [edge("a", "b").key]));
    expect(logged().ids).toEqual([501, 502]);
    expect((await reader.relationshipsOf(["a"])).map((r) => r.key)).toEqual([]);
    // A log emptied as a schema-6 writer did (no row kept): its ids start again below the reader's.
    const raw = new Database(sqliteFile(workspace));
    raw.exec("DELETE FROM relationship_changes");
    raw.close();
    await writer.applyGraphChanges(changes([edge("e", "f", 4)]));
    expect(logged().ids).toEqual([1]);
    expect((await reader.relationshipsOf(["e"])).map((r) => [r.key, r.weight])).toEqual([
      [edge("e", "f").key, 4],
    ]);
    await reader.close();
    await writer.close();
  });

  it("gives edgesOf the relationships of relationshipsOf, in its order, and keeps them in step with writes", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const bare = (rels: RelationshipRecord[]) =>
      rels.map(({ key, sourceKey, targetKey, weight }) => ({ key, sourceKey, targetKey, weight }));
    await reader.applyGraphChanges(
      changes([edge("d", "a", 2), edge("a", "c"), edge("a", "a"), edge("b", "c")]),
    );
    expect(await reader.edgesOf(["c", "a"])).toEqual(bare(await reader.relationshipsOf(["c", "a"])));
    expect((await reader.edgesOf(["c", "a"])).map((e) => e.key)).toEqual(
      [edge("a", "a"), edge("a", "c"), edge("a", "d"), edge("b", "c")].map((r) => r.key).sort(),
    );
    expect(await reader.edgesOf(["zzz"])).toEqual([]);

    const generation = reader.dataGeneration();
    await writer.applyGraphChanges(changes([edge("b", "a", 5)], [edge("a", "c").key]));
    expect(reader.dataGeneration()).not.toBe(generation);
    expect(await reader.edgesOf(["a"])).toEqual(bare(await reader.relationshipsOf(["a"])));
    expect((await reader.edgesOf(["a"])).map((e) => [e.key, e.weight])).toEqual(
      [
        [edge("a", "a").key, 1],
        [edge("a", "b").key, 5],
        [edge("a", "d").key, 2],
      ].sort(),
    );
    await reader.close();
    await writer.close();
  });

  it("gives edgeListsOf each entity's edges of edgesOf, in its order, in step with writes", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(
      changes([edge("d", "a", 2), edge("a", "c"), edge("a", "a"), edge("b", "c")]),
    );
    const lists = await reader.edgeListsOf(["c", "a", "zzz"]);
    expect([...lists.keys()]).toEqual(["c", "a", "zzz"]);
    for (const key of ["c", "a", "zzz"]) expect(lists.get(key)).toEqual(await reader.edgesOf([key]));

    await writer.applyGraphChanges(changes([edge("b", "a", 5)], [edge("a", "c").key]));
    expect((await reader.edgeListsOf(["a"])).get("a")).toEqual(await reader.edgesOf(["a"]));
    expect(lists.get("a")?.map((e) => e.key)).toEqual(
      [edge("a", "a"), edge("a", "c"), edge("a", "d")].map((r) => r.key).sort(),
    );
    await reader.close();
    await writer.close();
  });

  it("numbers the graph in walkAdjacency: each entity's row is its edgeListsOf list, in step with writes", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace, {
      readCache: SqliteReadCacheSchema.parse({ walkAdjacencyAfterWalks: 0 }),
    });
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(
      changes([edge("d", "a", 2), edge("a", "c"), edge("a", "a"), edge("b", "c")]),
    );
    const rowsMatchLists = async () => {
      const graph = reader.walkAdjacency();
      if (!graph) throw new Error("no walkAdjacency");
      const keys = ["a", "b", "c", "d"];
      const lists = await reader.edgeListsOf(keys);
      for (const key of keys) {
        const n = graph.entityNumbers.get(key) as number;
        expect(graph.entityKeys[n]).toBe(key);
        const row = [...graph.rowEdges.subarray(graph.rowOffsets[n], graph.rowOffsets[n + 1])];
        const asEdges = row.map((e) => ({
          key: graph.edgeKeys[e],
          sourceKey: graph.entityKeys[graph.edgeSources[e] as number],
          targetKey: graph.entityKeys[graph.edgeTargets[e] as number],
          weight: graph.edgeWeights[e],
        }));
        expect(asEdges).toEqual(lists.get(key));
      }
    };
    await rowsMatchLists();
    const before = reader.walkAdjacency();
    expect(reader.walkAdjacency()).toBe(before);

    await writer.applyGraphChanges(changes([edge("b", "a", 5)], [edge("a", "c").key]));
    expect(reader.walkAdjacency()).not.toBe(before);
    await rowsMatchLists();
    await reader.close();
    await writer.close();
  });

  it("builds a version's walkAdjacency once sqliteReadCache.walkAdjacencyAfterWalks walks asked for it", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace, {
      readCache: SqliteReadCacheSchema.parse({ walkAdjacencyAfterWalks: 2 }),
    });
    const writer = await openSqliteStore(workspace);
    await writer.applyGraphChanges(changes([edge("a", "b")]));
    expect(reader.walkAdjacency()).toBeUndefined();
    expect(reader.walkAdjacency()).toBeUndefined();
    expect(reader.walkAdjacency()).toBeDefined();
    // A new version starts counting again.
    await writer.applyGraphChanges(changes([edge("a", "c")]));
    expect(reader.walkAdjacency()).toBeUndefined();
    await reader.close();
    await writer.close();
  });

  it("keeps no walkAdjacency when sqliteReadCache.walkAdjacency is off", async () => {
    const store = await openSqliteStore(await tempWorkspace(), {
      readCache: SqliteReadCacheSchema.parse({ walkAdjacency: false }),
    });
    await store.applyGraphChanges(changes([edge("a", "b")]));
    expect(store.walkAdjacency()).toBeUndefined();
    await store.close();
  });

  it("keeps the community list in step with reports saved by any connection", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const community: CommunityRecord = {
      id: "c0",
      level: 0,
      parentId: null,
      childIds: [],
      entityKeys: ["a", "b"],
      contentHash: "h",
      report: null,
      reportHash: null,
    };
    await writer.replaceCommunities([community]);
    expect((await reader.listCommunities())[0]?.report).toBeNull();
    const report = {
      title: "A and B",
      summary: "s",
      rating: 1,
      ratingExplanation: "r",
      findings: [{ summary: "f", explanation: "e" }],
      markdown: "# A and B",
      method: "extractive" as const,
    };
    await writer.saveCommunityReport("c0", report, "h");
    const [listed] = await reader.listCommunities();
    expect(listed?.report?.title).toBe("A and B");
    listed?.entityKeys.push("tampered");
    if (listed?.report) listed.report.findings[0] = { summary: "x", explanation: "x" };
    const [again] = await reader.listCommunities();
    expect(again?.entityKeys).toEqual(["a", "b"]);
    expect(again?.report?.findings).toEqual(report.findings);
    await reader.replaceCommunities([]);
    expect(await reader.listCommunities()).toEqual([]);
    await reader.close();
    await writer.close();
  });

  it("keeps entity records in step with writes from this and other connections, and hands out copies", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const alpha = makeEntity("Alpha", { description: "first", sourceChunkIds: ["c1"] });
    await reader.applyGraphChanges(entityChanges([alpha, makeEntity("Beta")]));
    const keys = (names: EntityRecord[]) => names.map((e) => e.key);
    // Each key once, in first-seen order, unknown keys skipped; a second read comes from memory.
    expect(keys(await reader.getEntities(["beta", "alpha", "nobody", "beta"]))).toEqual(["beta", "alpha"]);
    const [first] = await reader.getEntities(["alpha"]);
    first?.sourceChunkIds.push("tampered");
    first?.fragments.push("tampered");
    expect((await reader.getEntities(["alpha"]))[0]?.sourceChunkIds).toEqual(["c1"]);

    await writer.applyGraphChanges(entityChanges([{ ...alpha, description: "second" }], ["beta"]));
    await writer.applyGraphChanges(entityChanges([makeEntity("Nobody")]));
    expect(
      (await reader.getEntities(["alpha", "beta", "nobody"])).map((e) => [e.key, e.description]),
    ).toEqual([
      ["alpha", "second"],
      ["nobody", expect.any(String)],
    ]);
    await reader.applyGraphChanges(entityChanges([{ ...alpha, description: "third" }]));
    expect((await reader.getEntities(["alpha"]))[0]?.description).toBe("third");
    await reader.close();
    await writer.close();
  });
  it("keeps entity labels in step with writes from this and other connections, in the order asked, as copies", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(entityChanges([makeEntity("Alpha"), makeEntity("Beta")]));
    const asked = ["beta", "nobody", "alpha", "beta"];
    expect(await reader.entityLabels(asked)).toEqual([
      { key: "beta", name: "Beta", type: "organization" },
      { key: "alpha", name: "Alpha", type: "organization" },
      { key: "beta", name: "Beta", type: "organization" },
    ]);
    const [first] = await reader.entityLabels(["alpha"]);
    if (first) first.name = "tampered";
    expect((await reader.entityLabels(["alpha"]))[0]?.name).toBe("Alpha");

    await writer.applyGraphChanges(
      entityChanges([makeEntity("Alpha", { type: "person" }), makeEntity("Nobody")], ["beta"]),
    );
    expect(await reader.entityLabels(asked)).toEqual([
      { key: "nobody", name: "Nobody", type: "organization" },
      { key: "alpha", name: "Alpha", type: "person" },
    ]);
    await reader.applyGraphChanges(entityChanges([makeEntity("Alpha", { type: "place" })]));
    expect((await reader.entityLabels(["alpha"]))[0]?.type).toBe("place");
    await reader.close();
    await writer.close();
  });

  it("ranks neighbours and the edges among entities by weight, ties in SQLite's key order (code points)", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    // U+FF5A sorts before U+1F600 by code point, after it by UTF-16 unit (a surrogate pair).
    const [wide, astral] = ["\uFF5A", "\u{1F600}"];
    await store.applyGraphChanges(
      changes([edge("hub", astral, 2), edge("hub", wide, 2), edge("hub", "b", 2), edge("hub", "a", 3)]),
    );
    expect(await store.neighboursOf(["hub"], ["hub"], 10)).toEqual(["a", "b", wide, astral]);
    expect(await store.neighboursOf(["hub"], ["hub"], 3)).toEqual(["a", "b", wide]);
    const among = await store.relationshipsAmong(["hub", astral, wide, "a", "b"], 10);
    expect(among.map((r) => r.key)).toEqual(
      [edge("hub", "a"), edge("hub", "b"), edge("hub", wide), edge("hub", astral)].map((e) => e.key),
    );
    expect((await store.relationshipsAmong(["hub", astral, wide, "a", "b"], 3)).map((r) => r.key)).toEqual(
      among.slice(0, 3).map((r) => r.key),
    );
    await store.close();
  });

  it("finds the edges among a hub and a few of its neighbours, by pair or by scan alike", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    const spokes = Array.from({ length: 40 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    await store.applyGraphChanges(
      changes([
        ...spokes.map((s, i) => edge("hub", s, 1 + (i % 3))),
        edge("s01", "s02", 9),
        edge("hub", "hub", 2),
      ]),
    );
    // Two entities beside a hub of 41 edges: its pairs are looked up; forty: its edges scanned.
    const few = await store.relationshipsAmong(["s02", "hub", "s01"], 10);
    expect(few.map((r) => r.key)).toEqual(
      [edge("s01", "s02"), edge("hub", "s02"), edge("hub", "hub"), edge("hub", "s01")].map((e) => e.key),
    );
    const many = await store.relationshipsAmong(["hub", ...spokes], 100);
    expect(many).toHaveLength(42);
    expect(many.slice(0, 3).map((r) => r.key)).toEqual(
      [edge("s01", "s02"), edge("hub", "s02"), edge("hub", "s05")].map((e) => e.key),
    );
    await store.close();
  });

  it("remembers entity full-text searches while the data is unchanged, in step with writes, handing out copies", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    await reader.applyGraphChanges(
      entityChanges([makeEntity("Harbor Works", { description: "a harbor crane maker" })]),
    );
    const ids = async (store: typeof reader) => (await store.searchEntityText("harbor", 5)).map((h) => h.id);
    expect(await ids(reader)).toEqual(["harbor works"]);
    const [hit] = await reader.searchEntityText("harbor", 5);
    if (hit) hit.id = "tampered";
    expect(await ids(reader)).toEqual(["harbor works"]);

    await writer.applyGraphChanges(entityChanges([makeEntity("Harbor Bank")]));
    expect((await ids(reader)).sort()).toEqual(["harbor bank", "harbor works"]);
    await reader.applyGraphChanges(entityChanges([], ["harbor works"]));
    expect(await ids(reader)).toEqual(["harbor bank"]);
    await reader.close();
    await writer.close();
  });

  it("searches entities alike with the search memo off (sqliteReadCache.maxEntitySearches 0)", async () => {
    const workspace = await tempWorkspace();
    const remembering = await openSqliteStore(workspace);
    const forgetting = await openSqliteStore(workspace, {
      readCache: SqliteReadCacheSchema.parse({ maxEntitySearches: 0 }),
    });
    await remembering.applyGraphChanges(
      entityChanges([makeEntity("Harbor Works"), makeEntity("Harbor Bank"), makeEntity("Hill Farm")]),
    );
    for (const query of ["harbor", "harbor", "hill harbor", "farm"]) {
      const remembered = await remembering.searchEntityText(query, 2);
      expect(remembered.length).toBeGreaterThan(0);
      expect(await forgetting.searchEntityText(query, 2)).toEqual(remembered);
    }
    await remembering.close();
    await forgetting.close();
  });
  it("keeps chunk records in step with writes from this and other connections, in the order asked, as copies", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const [one, two] = [makeChunk("d", 0, "first passage"), makeChunk("d", 1, "second passage")];
    await reader.upsertDocument(makeDocument("d"));
    await reader.replaceDocumentChunks("d", [one, two]);
    const texts = async () =>
      (await reader.getChunks([two.id, "nowhere", one.id, two.id])).map((c) => c.text);
    expect(await texts()).toEqual(["second passage", "first passage", "second passage"]);
    const [first] = await reader.getChunks([one.id]);
    if (first) first.text = "tampered";
    expect((await reader.getChunks([one.id]))[0]).toEqual(one);

    const edited = makeChunk("d", 0, "edited passage");
    await writer.replaceDocumentChunks("d", [edited, two]);
    expect(await reader.getChunks([one.id, edited.id])).toEqual([edited]);
    await reader.replaceDocumentChunks("d", [edited]);
    expect(await reader.getChunks([two.id, edited.id])).toEqual([edited]);
    await reader.close();
    await writer.close();
  });
});
