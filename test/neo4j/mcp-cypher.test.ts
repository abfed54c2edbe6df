import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cypherAccessOf } from "../../src/integrations/mcp/cypher-tools.js";
import { createKgragMcpServer } from "../../src/integrations/mcp/kgrag-mcp-server.js";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { databaseCounts, liveDriver, liveNeo4j, skipReason } from "../support/live-neo4j.js";

const PASSAGES = [
  "Corvane Shipping is a cargo line based in Port Ellery. It was founded in 1987 by Tomas Arkwright.",
  "Tomas Arkwright was born in Vessen and studied at the Ellery Maritime Institute.",
];

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { text: string }[])[0]?.text ?? "";
}

/** `kgrag mcp`'s tools on a Neo4j workspace, against the live database the suite started. */
describe.skipIf(!liveNeo4j)(`MCP tools on a Neo4j workspace (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let kgrag: Kgrag;
  let client: Client;
  let driver: Driver;
  let workspace: string;

  beforeAll(async () => {
    if (!liveNeo4j) return;
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-mcp-"));
    kgrag = await createKgrag({
      env: {
        KGRAG_STORAGE: "neo4j",
        NEO4J_URI: liveNeo4j.uri,
        NEO4J_USERNAME: liveNeo4j.username,
        NEO4J_PASSWORD: liveNeo4j.password,
      },
      config: { workspace: join(root, "ws"), community: { enabled: false } },
    });
    await kgrag.index(
      PASSAGES.map((text, i) => ({ id: `p${i}`, title: `Passage ${i}`, path: null, metadata: {}, text })),
    );
    const cypher = cypherAccessOf(kgrag.services.store);
    if (!cypher) throw new Error("a Neo4j workspace must offer Cypher access");
    workspace = cypher.workspace;
    const server = createKgragMcpServer(kgrag, { cypher });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    driver = liveDriver(liveNeo4j);
  });

  afterAll(async () => {
    if (!liveNeo4j) return;
    await client?.close();
    await driver?.executeQuery("MATCH (n {workspace: $workspace}) DETACH DELETE n", { workspace });
    await driver?.close();
    await kgrag?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("offers cypher beside the graph tools, and no ask without a chat model", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("cypher");
    expect(names).toContain("query");
    expect(names).not.toContain("ask");
  });

  it("runs a read query in the workspace and returns the rows the database holds", async () => {
    const query = "MATCH (e:Entity {workspace: $workspace}) RETURN e.name AS name ORDER BY name";
    const result = await client.callTool({ name: "cypher", arguments: { query } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const direct = await driver.executeQuery(query, { workspace });
    const expected = direct.records.map((r) => ({ name: r.get("name") as string }));
    expect(expected.length).toBeGreaterThan(0);
    expect((JSON.parse(textOf(result)) as { rows: unknown[] }).rows).toEqual(expected);
  });

  it("refuses a write before it reaches the database, which stays unchanged", async () => {
    const before = await databaseCounts(driver);
    const result = await client.callTool({
      name: "cypher",
      arguments: { query: "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e" },
    });
    expect(result.isError).toBe(true);
    expect(await databaseCounts(driver)).toEqual(before);
  });

  it("answers a query with passage sources from the Neo4j workspace", async () => {
    const result = await client.callTool({
      name: "query",
      arguments: { question: "Who founded Corvane Shipping?", mode: "local" },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toContain("Tomas Arkwright");
  });
});
