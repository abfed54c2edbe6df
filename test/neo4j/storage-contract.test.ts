import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findCypherFile, resolveQuery } from "../../src/cli/actions/cypher.js";
import { driverReadOnlySession, runReadOnlyCypher } from "../../src/cypher/run-cypher.js";
import { copyStore } from "../../src/export/copy-store.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { DriverRunner, type Neo4jSettings } from "../../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore, openNeo4jStore } from "../../src/storage/neo4j/neo4j-store.js";
import { SMALL_NAMESPACE } from "../../src/storage/neo4j/search.js";
import { relationshipSearchTerms } from "../../src/storage/neo4j/search-terms.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { liveNeo4j } from "../support/live-neo4j.js";
import { describeStorageContract } from "../support/storage-contract.js";
import { changes, makeRelationship, mergeChunk, seedDocument } from "../support/storage-fixtures.js";

/**
 * The shared GraphStore contract and a few Neo4j-only checks, against a live Neo4j when NEO4J_URI
 * is set (the suite starts one, see test/neo4j-server/). Each test uses a fresh workspace in the database and
 * deletes it afterwards, so the suite can run against a database that holds other data.
 */

if (!liveNeo4j) {
  describe.skip("GraphStore contract: neo4j", () => {
    it(`skipped: no Neo4j (${process.env.KGRAG_TEST_NEO4J_SKIPPED ?? "NEO4J_URI not set"})`, () => {});
  });
} else {
  const settings: Neo4jSettings = liveNeo4j;
  const freshStore = () => openNeo4jStore(settings, `kgrag-test-${randomUUID()}`);
  const dropWorkspace = async (store: GraphStore) => {
    if (store instanceof Neo4jGraphStore) await store.deleteWorkspace();
  };

  describeStorageContract("neo4j", freshStore, dropWorkspace);

  describe("Neo4j backend", () => {
    let store: Neo4jGraphStore;

    beforeAll(async () => {
      store = await freshStore();
      const [chunk] = await seedDocument(store, "d1", ["Acme hired Bob in Berlin."]);
      await mergeChunk(
        store,
        chunk!.id,
        ["Acme", "Bob", "Berlin"],
        [
          ["Acme", "Bob"],
          ["Bob", "Berlin"],
        ],
      );
    });

    afterAll(async () => {
      await dropWorkspace(store);
      await store.close();
    });

    it("keeps workspaces apart in one database", async () => {
      const other = await freshStore();
      try {
        expect(await other.listEntities()).toEqual([]);
        expect(await other.searchChunkText("Acme", 5)).toEqual([]);
        expect((await store.listEntities()).length).toBe(3);
      } finally {
        await other.close();
      }
    });

    it("moves a workspace with the retired unstemmed relationship text to the stemmed index on open", async () => {
      const old = await freshStore();
      const runner = old.connection.runner;
      if (!(runner instanceof DriverRunner)) throw new Error("expected a driver-backed store");
      const rel = makeRelationship("Ada", "Analytical Engine", { description: "Ada directed the programs." });
      await old.applyGraphChanges(changes({ upsertRelationships: [rel] }));
      // As an older kgrag left it: unstemmed searchText on the old index, no searchTerms, no done flag.
      const workspace = old.workspace;
      const rawOn = (on: DriverRunner) => (text: string) =>
        on.driver.executeQuery(text, { workspace }, { database: on.database });
      const raw = rawOn(runner);
      await raw(
        "MATCH ()-[r:RELATED {workspace: $workspace}]->() SET r.searchText = 'ada directed' REMOVE r.searchTerms",
      );
      await raw("MATCH (m:Meta {workspace: $workspace}) DETACH DELETE m");
      await runner.driver.executeQuery(
        "CREATE FULLTEXT INDEX kgrag_relationship_text IF NOT EXISTS FOR ()-[r:RELATED]-() ON EACH [r.searchText]",
        {},
        { database: runner.database },
      );
      expect(await old.searchRelationshipText("directs", 5)).toEqual([]);
      await old.close();
      // A new process: fresh module state, so schema and back-fill are checked again.
      vi.resetModules();
      const { openNeo4jStore: reopen } = await import("../../src/storage/neo4j/neo4j-store.js");
      const migrated = await reopen(settings, workspace);
      // Its DriverRunner is the fresh modules' class, so not `instanceof` this file's.
      const rawAfter = rawOn(migrated.connection.runner as DriverRunner);
      try {
        const hits = await migrated.searchRelationshipText("Who directs programs?", 5);
        expect(hits.map((h) => h.id)).toEqual([rel.key]);
        const { records: indexes } = await rawAfter(
          "SHOW INDEXES YIELD name WHERE name = 'kgrag_relationship_text'",
        );
        expect(indexes).toEqual([]);
        const { records } = await rawAfter(
          "MATCH ()-[r:RELATED {workspace: $workspace}]->() RETURN r.searchText AS text, r.searchTerms AS terms",
        );
        expect(records.map((r) => [r.get("text"), r.get("terms")])).toEqual([
          [null, relationshipSearchTerms(rel)],
        ]);
      } finally {
        await migrated.deleteWorkspace();
        await migrated.close();
      }
    });

    it("runs the shipped exploration queries read-only, and refuses a write", async () => {
      const runner = store.connection.runner;
      if (!(runner instanceof DriverRunner)) throw new Error("expected a driver-backed store");
      const session = driverReadOnlySession(runner.driver, runner.database);
      const limits = { timeoutMs: 10_000, maxRows: 100 };
      const path = resolveQuery(
        undefined,
        { file: findCypherFile("explore/shortest-path"), param: ["from=Acme", "to=Berlin"] },
        store.workspace,
      );
      const rows = await runReadOnlyCypher(session, path.text, path.params, limits);
      expect(rows.rows[0]?.hops).toBe(2);
      const top = resolveQuery(
        undefined,
        { file: findCypherFile("explore/top-entities-by-degree"), param: [] },
        store.workspace,
      );
      expect((await runReadOnlyCypher(session, top.text, top.params, limits)).rows[0]?.entity).toBe("Bob");
      await expect(runReadOnlyCypher(session, "MATCH (n) DETACH DELETE n", {}, limits)).rejects.toThrow(
        /read-write|write/,
      );
      expect((await store.listEntities()).length).toBe(3);
    });

    it("searches a namespace larger than the exact-ranking size through the vector index", async () => {
      // Distinct directions on a half circle, so the nearest one is unambiguous.
      const count = SMALL_NAMESPACE + 50;
      const direction = (i: number) => [
        Math.cos((Math.PI * i) / count),
        Math.sin((Math.PI * i) / count),
        0.1,
      ];
      const items = Array.from({ length: count }, (_, i) => ({
        id: `v${i}`,
        vector: direction(i),
        textHash: `h${i}`,
      }));
      await store.upsertVectors("communities", items);
      const hits = await store.searchVectors("communities", direction(7), 3);
      expect(hits[0]?.id).toBe("v7");
      expect(hits[0]?.score).toBeCloseTo(1, 3);
    });

    it("reports its vectors for `kgrag status`: the workspace's counts and the Neo4j vector index", async () => {
      // So small a memory budget that 8 vectors already need the server's index.
      const indexed = await openNeo4jStore(
        { ...settings, inMemoryVectorFloats: 10 },
        `kgrag-test-${randomUUID()}`,
      );
      try {
        const items = Array.from({ length: 8 }, (_, i) => ({
          id: `c${i}`,
          vector: [1, i, 0.5],
          textHash: `h${i}`,
        }));
        await indexed.upsertVectors("communities", items);
        const status = await indexed.vectorIndexStatus();
        expect(status.map((s) => s.namespace)).toEqual([
          "chunks",
          "entities",
          "relationships",
          "communities",
        ]);
        expect(status.find((s) => s.namespace === "communities")).toMatchObject({
          kind: "neo4j",
          vectors: 8,
          fresh: true,
          neo4jIndex: { name: "kgrag_community_embedding", state: "ONLINE", dimension: expect.any(Number) },
        });
        expect(status.find((s) => s.namespace === "chunks")).toMatchObject({ vectors: 0 });
      } finally {
        await dropWorkspace(indexed);
        await indexed.close();
      }
    });

    it("receives a migrated embedded workspace unchanged", async () => {
      const dir = mkdtempSync(join(tmpdir(), "kgrag-neo4j-migrate-"));
      const source = await openSqliteStore(dir);
      const target = await freshStore();
      try {
        const [chunk] = await seedDocument(source, "d1", ["Acme hired Bob."]);
        await mergeChunk(source, chunk!.id, ["Acme", "Bob"], [["Acme", "Bob"]]);
        await copyStore(source, target);
        expect(await target.listEntities()).toEqual(await source.listEntities());
        expect(await target.listRelationships()).toEqual(await source.listRelationships());
        expect(await target.getChunkMentions([chunk!.id])).toEqual(
          await source.getChunkMentions([chunk!.id]),
        );
        expect(await target.counts()).toEqual(await source.counts());
      } finally {
        await dropWorkspace(target);
        await target.close();
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
