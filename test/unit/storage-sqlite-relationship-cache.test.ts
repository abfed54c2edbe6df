import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, Sql } from "../../src/storage/sqlite/connection.js";
import { RelationshipCache } from "../../src/storage/sqlite/relationship-cache.js";
import type { RelationshipRecord } from "../../src/types.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function record(key: string): RelationshipRecord {
  return {
    key,
    sourceKey: "a",
    targetKey: key,
    description: "",
    fragments: [],
    keywords: [],
    weight: 1,
    sourceChunkIds: [],
    fragmentsHash: "",
    needsSummary: false,
  };
}

describe("RelationshipCache.records", () => {
  it("returns every record asked for when the call overflows the cache, cached ones included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kgrag-rel-cache-"));
    dirs.push(dir);
    const { db } = openDatabase(join(dir, "kgrag.sqlite"));
    const cache = new RelationshipCache(new Sql(db), 3);
    const loaded: string[][] = [];
    const load = (keys: string[]) => {
      loaded.push(keys);
      return keys.map(record);
    };
    expect(cache.records(["r1", "r2"], load).map((r) => r.key)).toEqual(["r1", "r2"]);
    // r1 and r2 are cached; r3 and r4 overflow the limit of 3, so the cache starts over.
    expect(cache.records(["r1", "r2", "r3", "r4"], load).map((r) => r.key)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(loaded).toEqual([
      ["r1", "r2"],
      ["r1", "r2", "r3", "r4"],
    ]);
    db.close();
  });
});
