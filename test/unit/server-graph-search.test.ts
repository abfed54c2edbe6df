import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GraphReads } from "../../src/server/graph/graph-reads.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import { changes, makeEntity, makeRelationship } from "../support/storage-fixtures.js";

describe("the server's entity search by the first letters of a name", () => {
  let dir: string;
  let store: SqliteGraphStore;
  let reads: GraphReads;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-entity-search-"));
    store = await openSqliteStore(dir);
    const names = ["Ada Okafor", "Okapi Works", "Rui Tanaka", "Bokaf Mill", "Jean-Okafor Lab"];
    await store.applyGraphChanges(
      changes({
        upsertEntities: names.map((name) => makeEntity(name)),
        upsertRelationships: [makeRelationship("Okapi Works", "Rui Tanaka", { weight: 1 })],
      }),
    );
    reads = new GraphReads(store);
  });

  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const search = async (prefix: string) => (await reads.search({ prefix, limit: 10 })).map((row) => row.name);

  it("finds a later word of a name, after the names that start so", async () => {
    expect(await search("Okaf")).toEqual(["Ada Okafor", "Jean-Okafor Lab"]);
    expect(await search("oka")).toEqual(["Okapi Works", "Ada Okafor", "Jean-Okafor Lab"]);
    expect(await search("Tanak")).toEqual(["Rui Tanaka"]);
    // Inside a word is not a word start.
    expect(await search("kaf")).toEqual([]);
  });
});
