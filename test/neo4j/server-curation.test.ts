import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import { childEnv } from "../support/cli-child.js";
import { liveNeo4j, skipReason } from "../support/live-neo4j.js";
import { type Running, startServer } from "../support/server.js";

const DOCS = [
  {
    id: "northwind",
    title: "Northwind Trading Company",
    text: "The Northwind Trading Company was founded by Ada Quill in Bristol in 1820.",
  },
  { id: "ntc", title: "NTC", text: "NTC merchants sailed from Bristol with porcelain." },
];

/** The server's curation routes on a Neo4j workspace (the writer lease instead of the lock file). */
describe.skipIf(!liveNeo4j)(`kgrag serve: curation on Neo4j (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let running: Running;
  const env = () => ({
    ...childEnv(),
    KGRAG_STORAGE: "neo4j",
    NEO4J_URI: liveNeo4j!.uri,
    NEO4J_USERNAME: liveNeo4j!.username,
    NEO4J_PASSWORD: liveNeo4j!.password,
  });

  beforeAll(async () => {
    if (!liveNeo4j) return;
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-serve-"));
    const kgrag = await createKgrag({
      env: env(),
      config: { workspace: join(root, "northwind"), community: { enabled: false } },
    });
    try {
      await kgrag.index(DOCS);
    } finally {
      await kgrag.close();
    }
    running = await startServer({ workspaces: [join(root, "northwind")], env: env() });
  }, 120_000);

  afterAll(async () => {
    if (!liveNeo4j) return;
    const store = running?.server.context.registry.all[0]?.kgrag.services.store;
    if (store instanceof Neo4jGraphStore) await store.deleteWorkspace();
    await running?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) =>
    fetch(`${running.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("merges, finds the entity by its alias, and refuses a taken name with nothing changed", async () => {
    const merged = await post("/api/v1/entities/merge", {
      names: ["NTC", "Northwind Trading Company"],
      into: "Northwind Trading Company",
    });
    expect(merged.status).toBe(200);
    expect(((await merged.json()) as { entity: { aliases: string[] } }).entity.aliases).toEqual(["NTC"]);
    const shown = await fetch(`${running.url}/api/v1/graph/entity?name=NTC`);
    expect(((await shown.json()) as { entity: { name: string } }).entity.name).toBe(
      "Northwind Trading Company",
    );
    const hits = await fetch(`${running.url}/api/v1/graph/entities?q=NTC`);
    expect(((await hits.json()) as { items: { name: string }[] }).items[0]?.name).toBe(
      "Northwind Trading Company",
    );

    const kgrag = running.server.context.registry.all[0]!.kgrag;
    const rules = await kgrag.entities.rules();
    const taken = await post("/api/v1/entities/rename", { entity: "Bristol", name: "NTC" });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { code: string } }).error.code).toBe("name_taken");
    expect(await kgrag.entities.rules()).toEqual(rules);
  });
});
