import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import { liveDriver, liveNeo4j, skipReason } from "../support/live-neo4j.js";

const DOCS = [
  {
    id: "northwind",
    title: "Northwind Trading Company",
    text:
      "The Northwind Trading Company was founded by Ada Quill in Bristol in 1820. " +
      "The Northwind Trading Company shipped tea from Canton.",
  },
  { id: "ntc", title: "NTC", text: "NTC merchants sailed from Bristol with porcelain." },
];

/** Aliases are searchable on Neo4j as on SQLite: the entity full-text index covers them. */
describe.skipIf(!liveNeo4j)(
  `Entity aliases in Neo4j full-text search (${liveNeo4j ? "live" : skipReason})`,
  () => {
    let root: string;
    let kgrag: Kgrag;
    let driver: Driver;
    const env = () => ({
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: liveNeo4j!.uri,
      NEO4J_USERNAME: liveNeo4j!.username,
      NEO4J_PASSWORD: liveNeo4j!.password,
    });
    const config = () => ({ workspace: join(root, "ws"), community: { enabled: false } });

    beforeAll(async () => {
      if (!liveNeo4j) return;
      root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-aliases-"));
      driver = liveDriver(liveNeo4j);
      kgrag = await createKgrag({ env: env(), config: config() });
      await kgrag.index(DOCS.map((d) => ({ ...d, metadata: {} })));
    });

    afterAll(async () => {
      if (!liveNeo4j) return;
      const store = kgrag?.services.store;
      if (store instanceof Neo4jGraphStore) await store.deleteWorkspace();
      await kgrag?.close();
      await driver?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it("finds a merged entity by an alias that only its aliases hold, in entity search and a local query", async () => {
      await kgrag.entities.merge(["NTC", "Northwind Trading Company"], { into: "Northwind Trading Company" });
      // A description without the alias: only the aliases can lead the index to the entity.
      await kgrag.entities.edit("Northwind Trading Company", { description: "A trading firm of Bristol." });
      const firm = await kgrag.entities.get("Northwind Trading Company");
      expect(firm.aliases).toEqual(["NTC"]);
      expect(firm.description).not.toContain("NTC");

      // Found although only its aliases hold "NTC". Not necessarily first: the index's BM25
      // statistics span every workspace in the database, and other tests write to it meanwhile.
      const hits = await kgrag.services.store.searchEntityText("NTC", 5);
      expect(hits.map((hit) => hit.id)).toContain("northwind trading company");
      const result = await kgrag.query("What did NTC ship?", { mode: "local", contextOnly: true });
      expect(result.context.entities.map((e) => e.name)).toContain("Northwind Trading Company");
    });

    it("replaces the entity index without aliases when a workspace is opened", async () => {
      // The index of earlier versions, as an existing database still has it.
      await driver.executeQuery(
        "CREATE FULLTEXT INDEX kgrag_entity_text IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.description] " +
          "OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}",
      );
      // A fresh module state: this process already ensured the schema once.
      vi.resetModules();
      const fresh = (await import("../../src/kgrag.js")) as typeof import("../../src/kgrag.js");
      const reopened = await fresh.createKgrag({ env: env(), config: config() });
      await reopened.close();
      const { records } = await driver.executeQuery(
        "SHOW FULLTEXT INDEXES YIELD name, properties WHERE name STARTS WITH 'kgrag_entity' RETURN name, properties",
      );
      expect(records.map((r) => [r.get("name"), r.get("properties")])).toEqual([
        ["kgrag_entity_names", ["name", "aliases", "description"]],
      ]);
    });
  },
);
