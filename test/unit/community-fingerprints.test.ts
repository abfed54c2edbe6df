import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/config.js";
import { CLUSTERED_FINGERPRINTS, hierarchyHash, warmStartOf } from "../../src/pipeline/create-communities.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { CommunityRecord } from "../../src/types.js";

/** The fingerprints beside the stored hierarchy: written apart from it, checked against it. */
let dir: string;
let store: SqliteGraphStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-fingerprints-"));
  store = await openSqliteStore(dir);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const community = (id: string, entityKeys: string[]): CommunityRecord => ({
  id,
  level: 0,
  parentId: null,
  childIds: [],
  entityKeys,
  contentHash: id,
  report: null,
  reportHash: null,
});

describe("warmStartOf", () => {
  const config = configFromEnv({});
  const stored = [community("c0-a", ["ines", "tomas"]), community("c0-b", ["porto", "lisbon"])];

  it("warm-starts from fingerprints recorded for the stored hierarchy", async () => {
    await store.replaceCommunities(stored);
    const record = { hierarchy: hierarchyHash(stored), fingerprints: ["f1", "f2"] };
    await store.setMeta(CLUSTERED_FINGERPRINTS, JSON.stringify(record));
    const start = await warmStartOf({ store, config });
    expect(start?.previous.fingerprints).toEqual(["f1", "f2"]);
  });

  it("clusters fresh when the fingerprints were recorded for another hierarchy (a crash between the writes)", async () => {
    await store.replaceCommunities(stored);
    const other = [community("c0-c", ["ines", "porto"])];
    const record = { hierarchy: hierarchyHash(other), fingerprints: ["f1", "f2"] };
    await store.setMeta(CLUSTERED_FINGERPRINTS, JSON.stringify(record));
    expect(await warmStartOf({ store, config })).toBeUndefined();
  });
});
