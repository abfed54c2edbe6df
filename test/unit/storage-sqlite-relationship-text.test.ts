import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { relationshipSearchText } from "../../src/storage/relationship-search-text.js";
import { MIGRATIONS, SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "../../src/storage/sqlite/schema.js";
import { openSqliteStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import type { RelationshipRecord } from "../../src/types.js";
import { changes, makeRelationship } from "../support/storage-fixtures.js";

const tempDirs: string[] = [];

async function tempWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-reltext-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const V1_RELATIONSHIPS = [
  makeRelationship("Alice", "Acme Corp", { keywords: ["employment"], description: "Alice directed Acme." }),
  makeRelationship("Bob", "Globex", { keywords: ["founding"], description: "Bob founded Globex." }),
  makeRelationship("腾讯", "深圳", { keywords: ["总部"], description: "腾讯公司总部位于深圳" }),
];

/** A workspace file exactly as kgrag wrote it at schema version 1, holding the given relationships. */
function writeV1Workspace(file: string, relationships: RelationshipRecord[]): void {
  const db = new Database(file);
  db.exec(MIGRATIONS[0]!);
  db.prepare("INSERT INTO meta (key, value) VALUES (?, '1')").run(SCHEMA_VERSION_KEY);
  const insert = db.prepare(
    `INSERT INTO relationships (key, source_key, target_key, description, fragments, keywords, weight,
       source_chunk_ids, fragments_hash, needs_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of relationships) {
    insert.run(
      r.key,
      r.sourceKey,
      r.targetKey,
      r.description,
      JSON.stringify(r.fragments),
      JSON.stringify(r.keywords),
      r.weight,
      JSON.stringify(r.sourceChunkIds),
      r.fragmentsHash,
      r.needsSummary ? 1 : 0,
    );
  }
  db.close();
}

function inspect(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return {
      version: db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(SCHEMA_VERSION_KEY),
      columns: db.prepare("SELECT name FROM pragma_table_info('relationships')").pluck().all(),
      indexes: db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'relationships' AND sql IS NOT NULL",
        )
        .pluck()
        .all(),
      tables: db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'relationships%'").pluck().all(),
      integrity: db.pragma("integrity_check", { simple: true }),
    };
  } finally {
    db.close();
  }
}

function fullTextRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT count(*) FROM relationships_fts").pluck().get() as number;
  } finally {
    db.close();
  }
}

const keysOf = (hits: { id: string }[]) => hits.map((hit) => hit.id);

describe("SQLite schema version 2: relationship full text", () => {
  it("migrates a version 1 workspace keeping every relationship, and makes them searchable", async () => {
    const workspace = await tempWorkspace();
    writeV1Workspace(sqliteFile(workspace), V1_RELATIONSHIPS);
    const store = await openSqliteStore(workspace);
    expect(await store.listRelationships()).toEqual(
      [...V1_RELATIONSHIPS].sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
    expect(keysOf(await store.searchRelationshipText("globex", 5))).toEqual([V1_RELATIONSHIPS[1]!.key]);
    expect(keysOf(await store.searchRelationshipText("alice", 5))).toEqual([V1_RELATIONSHIPS[0]!.key]);
    expect(keysOf(await store.searchRelationshipText("深圳", 5))).toEqual([V1_RELATIONSHIPS[2]!.key]);
    expect(await store.relationshipsOf(["globex"])).toEqual([V1_RELATIONSHIPS[1]]);
    await store.close();

    const after = inspect(sqliteFile(workspace));
    expect(after.version).toBe(String(SCHEMA_VERSION));
    expect(after.columns).toContain("seq");
    expect(after.indexes.sort()).toEqual([
      "relationships_by_source",
      "relationships_by_target",
      "relationships_needing_summary",
    ]);
    expect(after.tables).not.toContain("relationships_v1");
    expect(after.integrity).toBe("ok");
  });

  it("survives the version 2 step running again on a version 2 file", async () => {
    const workspace = await tempWorkspace();
    const first = await openSqliteStore(workspace);
    await first.applyGraphChanges(changes({ upsertRelationships: V1_RELATIONSHIPS }));
    expect(keysOf(await first.searchRelationshipText("founding", 5))).toEqual([V1_RELATIONSHIPS[1]!.key]);
    await first.setMeta(SCHEMA_VERSION_KEY, "1"); // e.g. copied over by a migrate from an old workspace
    await first.close();

    const second = await openSqliteStore(workspace);
    expect(await second.counts()).toMatchObject({ relationships: V1_RELATIONSHIPS.length });
    expect(keysOf(await second.searchRelationshipText("founding", 5))).toEqual([V1_RELATIONSHIPS[1]!.key]);
    expect(keysOf(await second.searchRelationshipText("腾讯", 5))).toEqual([V1_RELATIONSHIPS[2]!.key]);
    await second.close();
    expect(inspect(sqliteFile(workspace)).version).toBe(String(SCHEMA_VERSION));
  });
});

describe("SQLite relationship full text in step with writes", () => {
  it("drops a deleted relationship's full-text row, and its text never matches the row reusing its rowid", async () => {
    const workspace = await tempWorkspace();
    const store = await openSqliteStore(workspace);
    const [first, last] = [V1_RELATIONSHIPS[0]!, V1_RELATIONSHIPS[1]!];
    await store.applyGraphChanges(changes({ upsertRelationships: [first, last] }));
    expect(keysOf(await store.searchRelationshipText("founding", 5))).toEqual([last.key]);
    await store.applyGraphChanges(changes({ deleteRelationshipKeys: [last.key] }));
    expect(fullTextRows(sqliteFile(workspace))).toBe(1);
    const successor = makeRelationship("Carol", "Initech", {
      keywords: ["audit"],
      description: "Carol audits.",
    });
    await store.applyGraphChanges(changes({ upsertRelationships: [successor] }));
    expect(await store.searchRelationshipText("founding globex", 5)).toEqual([]);
    expect(keysOf(await store.searchRelationshipText("audit", 5))).toEqual([successor.key]);
    expect(fullTextRows(sqliteFile(workspace))).toBe(2);
    await store.close();
  });

  it("gives a reader the key of the row reusing a rowid after another connection's write", async () => {
    const workspace = await tempWorkspace();
    const reader = await openSqliteStore(workspace);
    const writer = await openSqliteStore(workspace);
    const [first, last] = [V1_RELATIONSHIPS[0]!, V1_RELATIONSHIPS[1]!];
    await writer.applyGraphChanges(changes({ upsertRelationships: [first, last] }));
    await writer.applyGraphChanges(changes({ deleteRelationshipKeys: [last.key] }));
    const successor = makeRelationship("Carol", "Initech", {
      keywords: ["audit"],
      description: "Carol audits.",
    });
    await writer.applyGraphChanges(changes({ upsertRelationships: [successor] }));
    expect(keysOf(await reader.searchRelationshipText("audit", 5))).toEqual([successor.key]);
    await writer.applyGraphChanges(changes({ deleteRelationshipKeys: [successor.key] }));
    const third = makeRelationship("Dave", "Hooli", { keywords: ["audit"], description: "Dave audits." });
    await writer.applyGraphChanges(changes({ upsertRelationships: [third] }));
    expect(keysOf(await reader.searchRelationshipText("audit", 5))).toEqual([third.key]);
    await reader.close();
    await writer.close();
  });

  it("indexes a relationship deleted and re-created in one change set with its new text", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    const rel = V1_RELATIONSHIPS[0]!;
    await store.applyGraphChanges(changes({ upsertRelationships: [rel] }));
    const rebuilt = { ...rel, keywords: ["board"], description: "Alice chairs the board." };
    await store.applyGraphChanges(
      changes({ deleteRelationshipKeys: [rel.key], upsertRelationships: [rebuilt] }),
    );
    expect(await store.searchRelationshipText("employment", 5)).toEqual([]);
    expect(keysOf(await store.searchRelationshipText("chairs", 5))).toEqual([rel.key]);
    await store.close();
  });

  it("stems English words, so a question's wording meets the description's", async () => {
    const store = await openSqliteStore(await tempWorkspace());
    await store.applyGraphChanges(changes({ upsertRelationships: V1_RELATIONSHIPS }));
    expect(keysOf(await store.searchRelationshipText("who directs", 5))).toEqual([V1_RELATIONSHIPS[0]!.key]);
    await store.close();
  });
});

describe("relationshipSearchText", () => {
  it("is the endpoint keys, the keywords and the description, one per line, blanks dropped", () => {
    const rel = makeRelationship("Acme Corp", "Bob", {
      keywords: ["founder", " "],
      description: "Bob founded it.",
    });
    expect(relationshipSearchText(rel)).toBe("acme corp\nbob\nfounder\nBob founded it.");
  });
});
