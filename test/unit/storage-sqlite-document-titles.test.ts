import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { entityKey } from "../../src/merge/keys.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import { changes, makeDocument, makeRelationship } from "../support/storage-fixtures.js";

const stores: SqliteGraphStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function twoConnections(): Promise<[SqliteGraphStore, SqliteGraphStore]> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-titles-"));
  dirs.push(dir);
  const writer = await openSqliteStore(dir);
  const reader = await openSqliteStore(dir);
  stores.push(writer, reader);
  return [writer, reader];
}

const subjectsOf = (store: SqliteGraphStore) => new QueryGraph(store, undefined).documentSubjects();

describe("document titles for queries (the index of document subjects)", () => {
  it("moves the titles' version with added, retitled and deleted documents only, in every connection", async () => {
    const [writer, reader] = await twoConnections();
    await writer.upsertDocuments([
      makeDocument("d1", { title: "Lilu" }),
      makeDocument("d2", { title: "Ea" }),
    ]);
    const first = reader.documentTitlesVersion();
    await writer.setDocumentStatus("d1", "failed", "boom");
    await writer.applyGraphChanges(changes({ upsertRelationships: [makeRelationship("Lilu", "Ea")] }));
    expect(reader.documentTitlesVersion()).toBe(first);
    await writer.upsertDocument(makeDocument("d2", { title: "Enki" }));
    const retitled = reader.documentTitlesVersion();
    expect(retitled).not.toBe(first);
    await writer.deleteDocuments(["d1"]);
    expect(reader.documentTitlesVersion()).not.toBe(retitled);
    expect(await reader.listDocumentTitles()).toEqual([{ id: "d2", title: "Enki" }]);
  });

  it("lists the titles again for a query only after the documents changed, and sees the change", async () => {
    const [writer, reader] = await twoConnections();
    await writer.upsertDocuments([makeDocument("d1", { title: "Lilu (mythology)" })]);
    const listed = vi.spyOn(reader, "listDocumentTitles");
    expect((await subjectsOf(reader)).get(entityKey("Lilu"))).toEqual(["d1"]);
    // Statuses and graph writes, as an index run commits them, leave the index as it was.
    await writer.setDocumentStatus("d1", "processed", null);
    await writer.applyGraphChanges(changes({ upsertRelationships: [makeRelationship("Lilu", "Ea")] }));
    await subjectsOf(reader);
    expect(listed).toHaveBeenCalledTimes(1);
    await writer.upsertDocument(makeDocument("d2", { title: "Lilu" }));
    expect((await subjectsOf(reader)).get(entityKey("Lilu"))).toEqual(["d1", "d2"]);
    expect(listed).toHaveBeenCalledTimes(2);
  });
});
