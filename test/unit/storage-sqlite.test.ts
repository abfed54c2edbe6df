import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { relationshipKey } from "../../src/merge/keys.js";
import { openDatabase } from "../../src/storage/sqlite/connection.js";
import { SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "../../src/storage/sqlite/schema.js";
import { openSqliteStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { describeStorageContract } from "../support/storage-contract.js";
import {
  changes,
  makeDocument,
  makeEntity,
  makeRelationship,
  mergeChunk,
  seedDocument,
} from "../support/storage-fixtures.js";

const tempDirs: string[] = [];

async function tempWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-sqlite-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describeStorageContract("sqlite", async () => openSqliteStore(await tempWorkspace()));

describe("SQLite refreshIndexes", () => {
  it("copies the write-ahead log into the database file, so closing has little left to copy", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    await seedDocument(
      store,
      "d1",
      Array.from({ length: 40 }, (_, i) => `passage ${i} about the harbour and its lanterns `.repeat(20)),
    );
    const size = () => statSync(sqliteFile(workspace)).size;
    const beforeCheckpoint = size();
    await store.refreshIndexes();
    // In WAL mode new pages live in the log until a checkpoint writes them to the database file.
    expect(size()).toBeGreaterThan(beforeCheckpoint);
    await store.close();
  });

  it("copies the log on a thread of its own: the event loop turns before the copy is done", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    await seedDocument(store, "d1", ["the harbour's lanterns ".repeat(200), "the quay at dawn ".repeat(200)]);
    const beforeCheckpoint = statSync(sqliteFile(workspace)).size;
    let refreshed = false;
    const refreshing = store.refreshIndexes().then(() => {
      refreshed = true;
    });
    // On the main connection the copy was done, and the refresh settled, before this turn.
    await new Promise((resolve) => setImmediate(resolve));
    const settledWithinATurn = refreshed;
    await refreshing;
    expect(settledWithinATurn).toBe(false);
    expect(statSync(sqliteFile(workspace)).size).toBeGreaterThan(beforeCheckpoint);
    // The main connection closes last: it copies the rest and removes the log.
    await store.close();
    expect(existsSync(`${sqliteFile(workspace)}-wal`)).toBe(false);
  });

  it("copies the log while a connection writes, before any refresh (checkpointEveryMs)", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace, { checkpointEveryMs: 10 });
    const size = () => statSync(sqliteFile(workspace)).size;
    const beforeWrites = size();
    await seedDocument(store, "d1", ["the harbour's lanterns ".repeat(200), "the quay at dawn ".repeat(200)]);
    // Without a refresh or a close, only a checkpoint moves the pages out of the log into the file.
    await vi.waitFor(() => expect(size()).toBeGreaterThan(beforeWrites));
    await store.close();
  });

  it("does not copy the log while writing when checkpointEveryMs is 0 (the default of the store)", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    const size = () => statSync(sqliteFile(workspace)).size;
    const beforeWrites = size();
    await seedDocument(store, "d1", ["the harbour's lanterns ".repeat(200)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(size()).toBe(beforeWrites);
    await store.close();
  });
});

describe("SQLite chunk text indexed in slices", () => {
  const pendingAndIndexed = (workspace: string) => {
    const db = new Database(sqliteFile(workspace), { readonly: true });
    const count = (sql: string) => Number(db.prepare(sql).pluck().get());
    const state = {
      pending: count("SELECT count(*) FROM fts_pending WHERE kind = 'chunk'"),
      indexed: count("SELECT count(*) FROM chunks_fts"),
    };
    db.close();
    return state;
  };

  it("commits one slice before it yields, then the rest, and finds the same chunks as a whole flush", async () => {
    const texts = ["amber lantern", "birch canoe", "cobalt drum", "dune ember", "fennel grove"];
    const sliced = await tempWorkspace();
    const whole = await tempWorkspace();
    const slicedStore = await openSqliteStore(sliced);
    const wholeStore = await openSqliteStore(whole);
    await seedDocument(slicedStore, "d1", texts);
    await seedDocument(wholeStore, "d1", texts);

    const indexing = slicedStore.indexChunkText({ rows: 2, pauseMs: 0 });
    expect(pendingAndIndexed(sliced)).toEqual({ pending: 3, indexed: 2 });
    await indexing;
    expect(pendingAndIndexed(sliced)).toEqual({ pending: 0, indexed: 5 });

    await wholeStore.refreshIndexes();
    for (const word of ["lantern", "canoe", "drum", "ember", "grove"]) {
      const found = await slicedStore.searchChunkText(word, 3);
      expect(found).toHaveLength(1);
      expect(found).toEqual(await wholeStore.searchChunkText(word, 3));
      expect(await slicedStore.searchChunkUnits(word, 3)).toEqual(await wholeStore.searchChunkUnits(word, 3));
    }
    await Promise.all([slicedStore.close(), wholeStore.close()]);
  });

  it("stops at its signal, even in a pause, and leaves the rest queued for the next flush", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    await seedDocument(store, "d1", ["kelp lagoon", "lichen meadow", "marble needle"]);
    const extractionOver = new AbortController();
    // A pause longer than the test's timeout: only the signal can end it.
    const indexing = store.indexChunkText({ rows: 1, pauseMs: 3_600_000 }, extractionOver.signal);
    extractionOver.abort();
    await indexing;
    expect(pendingAndIndexed(workspace)).toEqual({ pending: 2, indexed: 1 });
    await store.refreshIndexes();
    expect(pendingAndIndexed(workspace)).toEqual({ pending: 0, indexed: 3 });
    await store.close();
  });

  it("drops the queued rows of chunks deleted before their slice", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    await seedDocument(store, "gone", ["hazel island"]);
    await seedDocument(store, "kept", ["juniper kettle"]);
    // Deleted through SQL, as a row without its chunk: the slice must not stop at it.
    const raw = new Database(sqliteFile(workspace));
    raw.prepare("DELETE FROM chunks WHERE doc_id = 'gone'").run();
    raw.close();
    await store.indexChunkText({ rows: 1, pauseMs: 0 });
    expect(pendingAndIndexed(workspace)).toEqual({ pending: 0, indexed: 1 });
    await store.close();
  });
});

describe("SQLite relationships keep one edge per pair", () => {
  it("refuses an endpoint key holding the pair separator (two pairs could share a key), and writes nothing", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    const sourceKey = "a";
    const targetKey = "b\u001fc";
    const key = relationshipKey(sourceKey, targetKey);
    const ambiguous = { ...makeRelationship("A", "B"), key, sourceKey, targetKey };
    await expect(store.applyGraphChanges(changes({ upsertRelationships: [ambiguous] }))).rejects.toThrow(
      /pair separator/,
    );
    expect((await store.counts()).relationships).toBe(0);
    await store.close();
  });
});

describe("SQLite store file", () => {
  it("lists workspace metadata without its own schema version, so a copy cannot carry an old one", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    await store.setMeta("embedding.model", "hashing-v1");
    expect(await store.listMeta()).toEqual({ "embedding.model": "hashing-v1" });
    await store.close();
  });

  it("creates <workspace>/kgrag.sqlite and its folder, in WAL mode, with the schema version", async () => {
    const workspace = join(await tempWorkspace(), "nested", "workspace");
    const store = await openSqliteStore(workspace);
    await store.close();
    expect(existsSync(join(workspace, "kgrag.sqlite"))).toBe(true);
    const db = new Database(sqliteFile(workspace), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(SCHEMA_VERSION_KEY)).toBe(
      String(SCHEMA_VERSION),
    );
    db.close();
  });

  it("writes with synchronous NORMAL once open, whether it created the file or found it", async () => {
    // A new file is set up without fsyncs (synchronous OFF); its connection must not stay so.
    const file = join(await tempWorkspace(), "kgrag.sqlite");
    const created = openDatabase(file, 16384);
    const NORMAL = 1;
    expect(created.migrated).toBe(true);
    expect(created.db.pragma("synchronous", { simple: true })).toBe(NORMAL);
    expect(created.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(created.db.pragma("page_size", { simple: true })).toBe(16384);
    created.db.close();
    const reopened = openDatabase(file, 4096);
    expect(reopened.migrated).toBe(false);
    expect(reopened.db.pragma("synchronous", { simple: true })).toBe(NORMAL);
    expect(reopened.db.pragma("page_size", { simple: true })).toBe(16384);
    reopened.db.close();
  });

  it("keeps everything across close and reopen", async () => {
    const workspace = await tempWorkspace();
    const first = await openSqliteStore(workspace);
    const [chunk] = await seedDocument(first, "d1", ["腾讯公司总部位于深圳"]);
    await mergeChunk(first, chunk!.id, ["腾讯", "深圳"], [["腾讯", "深圳"]]);
    await first.upsertVectors("chunks", [{ id: chunk!.id, vector: [0.5, 0.5], textHash: "h" }]);
    await first.setMeta("embedding.dim", "2");
    const countsBefore = await first.counts();
    await first.close();

    const second = await openSqliteStore(workspace);
    expect(await second.counts()).toEqual(countsBefore);
    expect(await second.getMeta("embedding.dim")).toBe("2");
    expect((await second.searchChunkText("深圳", 3)).map((h) => h.id)).toEqual([chunk!.id]);
    expect((await second.searchVectors("chunks", [1, 1], 1))[0]?.id).toBe(chunk!.id);
    expect((await second.getChunkStates("d1"))[0]?.status).toBe("merged");
    await second.close();
  });

  it("lists the whole graph in lean form: the listed records, in order, without fragments or provenance", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    const pairs: [string, string][] = [
      ["Zed", "Fred"],
      ["Fred", "Ebenezer Scrooge"],
    ];
    await mergeChunk(store, chunk!.id, ["Zed", "Ebenezer Scrooge", "Fred"], pairs);
    const scrooge = makeEntity("Ebenezer Scrooge", { aliases: ["SCROOGE"], sourceChunkIds: [chunk!.id] });
    await store.applyGraphChanges(changes({ upsertEntities: [scrooge] }));

    const graph = await store.listGraph();
    expect(graph.entities).toEqual(
      (await store.listEntities()).map(({ key, name, type, description, aliases }) => ({
        key,
        name,
        type,
        description,
        ...(aliases ? { aliases } : {}),
      })),
    );
    expect(graph.relationships).toEqual(
      (await store.listRelationships()).map(
        ({ key, sourceKey, targetKey, description, keywords, weight }) => ({
          key,
          sourceKey,
          targetKey,
          description,
          keywords,
          weight,
        }),
      ),
    );
    expect(graph.entities.map((e) => e.key)).toEqual(["ebenezer scrooge", "fred", "zed"]);
    expect(graph.entities[0]?.aliases).toEqual(["SCROOGE"]);
    expect(graph.entities[1]).not.toHaveProperty("aliases");
    expect(graph.relationships).toHaveLength(2);
    await store.close();
  });

  it("reads id lists far longer than SQLite's variable limit", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    const chunks = await seedDocument(store, "d1", ["one", "two"]);
    const ids = [...Array.from({ length: 40_000 }, (_, i) => `missing-${i}`), ...chunks.map((c) => c.id)];
    expect(await store.getChunks(ids)).toEqual(chunks);
    expect((await store.degrees(ids)).size).toBe(ids.length);
    await store.close();
  });

  it("refuses a file written by a newer schema, saying what to do", async () => {
    const workspace = await tempWorkspace();
    await (await openSqliteStore(workspace)).close();
    const db = new Database(sqliteFile(workspace));
    db.prepare("UPDATE meta SET value = ? WHERE key = ?").run(String(SCHEMA_VERSION + 1), SCHEMA_VERSION_KEY);
    db.close();
    await expect(openSqliteStore(workspace)).rejects.toThrow(/Upgrade kgrag/);
  });

  it("lets two connections write the same workspace and see each other's writes", async () => {
    const workspace = await tempWorkspace();
    const a = await openSqliteStore(workspace);
    const b = await openSqliteStore(workspace);
    await a.upsertVectors("entities", [{ id: "x", vector: [1, 0], textHash: "1" }]);
    expect((await b.searchVectors("entities", [1, 0], 5)).map((h) => h.id)).toEqual(["x"]);
    // b's in-memory matrix is now cached; a's next write must still reach b's searches.
    await a.upsertVectors("entities", [{ id: "y", vector: [0, 1], textHash: "2" }]);
    expect((await b.searchVectors("entities", [0, 1], 1)).map((h) => h.id)).toEqual(["y"]);

    await Promise.all([
      seedDocument(a, "from-a", ["alpha words"]),
      seedDocument(b, "from-b", ["beta words"]),
    ]);
    expect((await a.listDocuments()).map((d) => d.id).sort()).toEqual(["from-a", "from-b"]);
    await a.close();
    await b.close();
    const db = new Database(sqliteFile(workspace), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });

  it("waits for another process's write transaction instead of failing", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    const holder = holdWriteLock(sqliteFile(workspace), 1500);
    await holder.locked;
    const started = Date.now();
    await store.setMeta("after.lock", "yes");
    // The write began while the child still held the lock (it waited, rather than failing busy).
    expect(started).toBeLessThan(await holder.committedAt);
    expect(await holder.exitCode).toBe(0);
    expect(await store.getMeta("held.by.child")).toBe("yes");
    await store.close();
  });
});

/** A child process that takes the write lock, reports it, holds it for `ms`, then says when it commits. */
function holdWriteLock(
  file: string,
  ms: number,
): { locked: Promise<void>; committedAt: Promise<number>; exitCode: Promise<number | null> } {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(file)});
    db.exec("BEGIN IMMEDIATE");
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('held.by.child', 'yes')").run();
    process.stdout.write("locked\\n");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});
    process.stdout.write("committing " + Date.now() + "\\n");
    db.exec("COMMIT");
    db.close();`;
  const child = spawn(process.execPath, ["-e", script], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      if (data.toString().includes("locked")) resolve();
    });
    child.on("exit", () => reject(new Error("lock holder exited before locking")));
  });
  const committedAt = new Promise<number>((resolve) => {
    child.stdout.on("data", (data: Buffer) => {
      const at = /committing (\d+)/.exec(data.toString())?.[1];
      if (at) resolve(Number(at));
    });
  });
  const exitCode = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { locked, committedAt, exitCode };
}

describe("SQLite page size", () => {
  const pageSizeOf = (workspace: string) => {
    const db = new Database(sqliteFile(workspace), { readonly: true });
    const size = Number(db.pragma("page_size", { simple: true }));
    db.close();
    return size;
  };

  it("creates a new file with the page size asked for", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace, { pageSize: 16384 });
    await seedDocument(store, "d1", ["vectors fit several to a page"]);
    await store.upsertVectors("chunks", [{ id: "d1:0", textHash: "h", vector: [0.6, 0.8] }]);
    await store.close();
    expect(pageSizeOf(workspace)).toBe(16384);
  });

  it("keeps an existing file's page size, and its data, whatever is asked on reopening", async () => {
    const workspace = await tempWorkspace();
    const first = await openSqliteStore(workspace, { pageSize: 4096 });
    await first.upsertVectors("chunks", [{ id: "c", textHash: "h", vector: [0.6, 0.8] }]);
    await first.close();
    const reopened = await openSqliteStore(workspace, { pageSize: 16384 });
    expect(await reopened.searchVectors("chunks", [0.6, 0.8], 1)).toEqual([
      { id: "c", score: expect.closeTo(1, 6) },
    ]);
    await reopened.close();
    expect(pageSizeOf(workspace)).toBe(4096);
  });
});

describe("config sqlitePageSize", () => {
  it("accepts powers of two from 512 to 65536 and defaults to 16 KB", async () => {
    const { ConfigSchema } = await import("../../src/config.js");
    const pageSize = (value?: number) => ConfigSchema.safeParse({ sqlitePageSize: value });
    expect(pageSize().data?.sqlitePageSize).toBe(16384);
    expect(pageSize(8192).data?.sqlitePageSize).toBe(8192);
    expect(pageSize(12288).error?.message).toMatch(/power of two/);
    expect(pageSize(131072).success).toBe(false);
  });
});

describe("SQLite unfinished document count", () => {
  it("is counted again after a write of its own connection or another's commit", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    await store.upsertDocuments([
      makeDocument("d1", { status: "pending" }),
      makeDocument("d2", { status: "processed" }),
    ]);
    expect(await store.unfinishedDocumentCount()).toBe(1);
    // Asked again in the same generation: the same count.
    expect(await store.unfinishedDocumentCount()).toBe(1);
    await store.setDocumentStatus("d1", "processed", null);
    expect(await store.unfinishedDocumentCount()).toBe(0);

    const other = new Database(sqliteFile(workspace));
    other.prepare("UPDATE documents SET status = 'processing' WHERE id = 'd2'").run();
    other.close();
    // A new synchronous stretch reads the other connection's commit.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await store.unfinishedDocumentCount()).toBe(1);
    await store.close();
  });
});

describe("SQLite cached entities (the query side's reads)", () => {
  it("are the records getEntities copies, frozen, and read again after a write", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    const harbour = makeEntity("Harbour", { description: "A harbour.", sourceChunkIds: ["c1"] });
    await store.applyGraphChanges(changes({ upsertEntities: [harbour, makeEntity("Lantern")] }));
    const keys = [harbour.key, "no such entity", harbour.key];
    const [shared] = await store.cachedEntities(keys);
    expect(await store.cachedEntities(keys)).toEqual(await store.getEntities(keys));
    if (!shared) throw new Error("no cached record");
    expect(shared.description).toBe("A harbour.");
    // The cache's own record: changing it throws rather than reaching the next reader.
    expect(() => Object.assign(shared, { description: "x" })).toThrow(TypeError);
    expect(() => shared.sourceChunkIds.push("c9")).toThrow(TypeError);
    // getEntities still hands out copies its caller may change.
    const [copy] = await store.getEntities([harbour.key]);
    copy?.sourceChunkIds.push("c9");
    expect((await store.cachedEntities([harbour.key]))[0]?.sourceChunkIds).toEqual(["c1"]);

    await store.applyGraphChanges(
      changes({ upsertEntities: [{ ...harbour, description: "A busy harbour." }] }),
    );
    expect((await store.cachedEntities([harbour.key]))[0]?.description).toBe("A busy harbour.");
    await store.close();
  });
});
