import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import { childEnv } from "../support/cli-child.js";
import { liveNeo4j, skipReason } from "../support/live-neo4j.js";

const DOCS = [
  {
    id: "porto",
    title: "Porto",
    text: "Ines Varga repairs clocks in Porto. Tomas Reis sells clocks in Porto.",
  },
];
const GUILD_DOC = { id: "guild", title: "Guild", text: "The Vessen Guild met in Porto." };

/** Entities made by hand on Neo4j, as test/unit/curation-create-entity.test.ts does them on SQLite; backups refused. */
describe.skipIf(!liveNeo4j)(`kg.entities.create on Neo4j (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let kg: Kgrag;

  beforeAll(async () => {
    if (!liveNeo4j) return;
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-create-"));
    kg = await createKgrag({
      env: {
        ...childEnv(),
        KGRAG_STORAGE: "neo4j",
        NEO4J_URI: liveNeo4j.uri,
        NEO4J_USERNAME: liveNeo4j.username,
        NEO4J_PASSWORD: liveNeo4j.password,
      },
      config: { workspace: join(root, "create"), community: { enabled: false } },
    });
    await kg.index(DOCS);
  }, 120_000);

  afterAll(async () => {
    if (!liveNeo4j) return;
    const { store } = kg.services;
    if (store instanceof Neo4jGraphStore) await store.deleteWorkspace();
    await kg.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("stores it searchable and embedded, keeps it through deletes, and folds a later extraction into it", async () => {
    const made = await kg.entities.create(
      { name: "Vessen Guild", type: "organization", description: "A guild of lens grinders." },
      { by: "bob" },
    );
    expect(made).toMatchObject({ key: "vessen guild", type: "organization", sourceChunkIds: [] });
    const { store } = kg.services;
    expect((await store.searchEntityText("lens grinders", 3)).map((h) => h.id)).toContain("vessen guild");
    expect((await store.vectorHashes("entities")).has("vessen guild")).toBe(true);
    expect((await kg.status()).communitiesStale).toBe(true);
    await kg.entities.addRelationship("Vessen Guild", "Ines Varga", { description: "She is a member." });
    expect((await store.relationshipsOf(["vessen guild"])).map((r) => r.description)).toEqual([
      "She is a member.",
    ]);

    const rules = await kg.entities.rules();
    await expect(kg.entities.create({ name: "vessen GUILD", description: "Again." })).rejects.toThrow(
      /already names another entity \("Vessen Guild"/,
    );
    expect(await kg.entities.rules()).toEqual(rules);

    await kg.deleteDocuments(["porto"]);
    expect((await kg.entities.list()).map((e) => e.name)).toEqual(["Vessen Guild"]);
    await kg.index([GUILD_DOC]);
    const guild = await kg.entities.get("Vessen Guild");
    expect(guild.sourceChunkIds).toEqual((await store.listChunks("guild")).map((c) => c.id));
    expect(guild.description).toContain("A guild of lens grinders.");
    expect(guild.type).toBe("organization");
  }, 120_000);

  it("refuses a backup with what to use instead, writing nothing", async () => {
    const file = join(root, "neo4j.kgrag-backup");
    await expect(kg.backup(file)).rejects.toThrow(/stored in Neo4j.*neo4j-admin database dump/s);
    expect(existsSync(file)).toBe(false);
  });
});
