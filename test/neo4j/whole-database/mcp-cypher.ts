import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cypherAccessOf } from "../../../src/integrations/mcp/cypher-tools.js";
import { createKgragMcpServer } from "../../../src/integrations/mcp/kgrag-mcp-server.js";
import { createKgrag, type Kgrag } from "../../../src/kgrag.js";
import { recordToPlain } from "../../../src/storage/neo4j/record-mapping.js";
import { databaseCounts, liveDriver, liveNeo4j, skipReason } from "../../support/live-neo4j.js";
import {
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../../support/scripted-openai-server.js";

const PASSAGES = [
  "Corvane Shipping is a cargo line based in Port Ellery. It was founded in 1987 by Tomas Arkwright.",
  "Tomas Arkwright was born in Vessen and studied at the Ellery Maritime Institute.",
];

/** The question the scripted model answers with GOLD: entities named per document. */
const GOLD =
  "MATCH (d:Document {workspace: $workspace})-[:HAS_CHUNK]->(:Chunk {workspace: $workspace})" +
  "-[:MENTIONS]->(e:Entity {workspace: $workspace}) " +
  "RETURN d.title AS document, count(DISTINCT e) AS entities ORDER BY document";
const WRITE = "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e";

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
  let neo4jEnv: Record<string, string>;

  beforeAll(async () => {
    if (!liveNeo4j) return;
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-mcp-"));
    neo4jEnv = {
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: liveNeo4j.uri,
      NEO4J_USERNAME: liveNeo4j.username,
      NEO4J_PASSWORD: liveNeo4j.password,
    };
    // The folder's name is the workspace in Neo4j: unique, so no other test's data is in it.
    kgrag = await createKgrag({
      env: neo4jEnv,
      config: { workspace: join(root, `mcp-${randomUUID()}`), community: { enabled: false } },
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
    // A fresh database creates its constraints and indexes on the first open: slow on a busy machine.
  }, 180_000);

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
  describe("ask (Text2Cypher) with a chat model on 127.0.0.1", () => {
    let server: ScriptedServer;
    let withModel: Kgrag;
    let askClient: Client;
    /** What the model writes for the text2cypher stage, set per test. */
    let proposed = GOLD;

    beforeAll(async () => {
      if (!liveNeo4j) return;
      server = await startScriptedOpenAI({
        chat: scriptByStage({
          text2cypher: () => ({ content: `\`\`\`cypher\n${proposed}\n\`\`\`` }),
          answer: { content: "Each passage names its entities." },
        }),
      });
      // The same workspace, opened by a second process-like instance with a model; Text2Cypher
      // has its own model, as a config file's `stages.text2cypher` gives it.
      withModel = await createKgrag({
        env: neo4jEnv,
        config: {
          workspace: kgrag.services.config.workspace,
          community: { enabled: false },
          llm: { baseURL: server.baseURL, model: "scripted", apiKey: "test" },
          stages: { text2cypher: { model: "scripted-cypher" } },
        },
      });
      const cypher = cypherAccessOf(withModel.services.store);
      if (!cypher) throw new Error("a Neo4j workspace must offer Cypher access");
      const mcp = createKgragMcpServer(withModel, { cypher });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcp.connect(serverSide);
      askClient = new Client({ name: "test-ask", version: "0" });
      await askClient.connect(clientSide);
    }, 120_000);

    afterAll(async () => {
      if (!liveNeo4j) return;
      await askClient?.close();
      await withModel?.close();
      await server?.close();
    });

    it("returns the rows the gold query returns when run directly", async () => {
      proposed = GOLD;
      expect((await askClient.listTools()).tools.map((t) => t.name)).toContain("ask");
      const result = await askClient.callTool({
        name: "ask",
        arguments: { question: "How many entities does each document name?" },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      const reply = JSON.parse(textOf(result)) as { cypher: string; valid: boolean; rows: unknown[] };
      const direct = (await driver.executeQuery(GOLD, { workspace })).records.map((r) => recordToPlain(r));
      expect(direct).toHaveLength(PASSAGES.length);
      expect(reply).toMatchObject({ cypher: GOLD, valid: true });
      expect(reply.rows).toEqual(direct);
      const cypherCalls = server.requests.filter((r) => r.stage === "text2cypher");
      expect(cypherCalls.map((r) => r.body.model)).toEqual(["scripted-cypher"]);
      expect(server.count("answer")).toBe(1);
    });

    it("refuses a write the model proposes, runs nothing and leaves the database unchanged", async () => {
      proposed = WRITE;
      const before = await databaseCounts(driver);
      const calls = server.requests.length;
      const result = await askClient.callTool({
        name: "ask",
        arguments: { question: "Remove every entity of this workspace." },
      });
      expect(result.isError).toBe(true);
      const reply = JSON.parse(textOf(result)) as { valid: boolean; errors: string[]; rows: unknown[] };
      expect(reply.valid).toBe(false);
      expect(reply.errors.join("\n")).toMatch(/read-only|write|DELETE/i);
      expect(reply.rows).toEqual([]);
      // The first query and one correction were asked for; no answer was written from rows.
      expect(server.requests.slice(calls).map((r) => r.stage)).toEqual(["text2cypher", "text2cypher"]);
      expect(await databaseCounts(driver)).toEqual(before);
    });
  });
});
