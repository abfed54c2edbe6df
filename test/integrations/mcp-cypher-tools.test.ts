import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { CypherQueryError, type ReadOnlySession } from "../../src/cypher/run-cypher.js";
import { parseGraphSchema } from "../../src/index.js";
import { type CypherAccess, registerCypherTools } from "../../src/integrations/mcp/cypher-tools.js";
import type { ChatModel, ChatRequest, ChatResponse, Stage } from "../../src/llm/chat-model.js";

const SCHEMA = parseGraphSchema({
  labels: ["Entity"],
  relationshipTypes: ["RELATED"],
  nodeProperties: { Entity: { name: "STRING", workspace: "STRING" } },
  relationshipProperties: {},
  patterns: [{ start: "Entity", type: "RELATED", end: "Entity" }],
});

/** A database that records what it is asked and answers every read with one row. */
function scriptedAccess(): {
  access: CypherAccess;
  ran: { query: string; params: Record<string, unknown> }[];
} {
  const ran: { query: string; params: Record<string, unknown> }[] = [];
  const session: ReadOnlySession = {
    // Plans everything as a read, so a refusal can only come from kgrag's own validator.
    explain: async () => "r",
    run: async (query, params) => {
      ran.push({ query, params });
      return { columns: ["name"], rows: [{ name: "Lumen Robotics" }], truncated: false };
    },
  };
  const access: CypherAccess = {
    workspace: "ws-1",
    session,
    execute: async () => ({ rows: [] }),
    schema: async () => SCHEMA,
  };
  return { access, ran };
}

/** A chat model that answers each stage with its scripted reply, or its next one of a list. */
function scriptedChat(replies: Partial<Record<Stage, string | string[]>>): ChatModel {
  return {
    model: "scripted",
    chat: async (request: ChatRequest): Promise<ChatResponse> => {
      const scripted = replies[request.stage];
      const text = Array.isArray(scripted) ? scripted.shift() : scripted;
      if (text === undefined) throw new Error(`no reply scripted for ${request.stage}`);
      return { text, usage: { promptTokens: 1, completionTokens: 1 }, cached: false };
    },
  };
}

async function connected(access: CypherAccess, chat: ChatModel | null = null): Promise<Client> {
  const server = new McpServer({ name: "kgrag", version: "0" });
  registerCypherTools(server, access, chat);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return client;
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { text: string }[])[0]?.text ?? "";
}

describe("the MCP cypher tool (Neo4j workspaces)", () => {
  it("runs a read query with $workspace filled in, and offers no ask tool without a chat model", async () => {
    const { access, ran } = scriptedAccess();
    const client = await connected(access);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["cypher"]);
    const result = await client.callTool({
      name: "cypher",
      arguments: { query: "MATCH (e:Entity {workspace: $workspace}) RETURN e.name AS name LIMIT 5" },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result)).rows).toEqual([{ name: "Lumen Robotics" }]);
    expect(ran).toHaveLength(1);
    expect(ran[0]?.params).toEqual({ workspace: "ws-1" });
    await client.close();
  });

  it("refuses a write before it reaches the database", async () => {
    const { access, ran } = scriptedAccess();
    const client = await connected(access);
    const result = await client.callTool({
      name: "cypher",
      arguments: { query: "MATCH (e:Entity) SET e.name = 'x' RETURN e" },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Refused/);
    expect(ran).toHaveLength(0);
    await client.close();
  });

  it("calls a procedure named in neo4j.readOnlyProcedures, and refuses it when not named", async () => {
    const query = "CALL apoc.meta.schema() YIELD value RETURN value";
    const { access, ran } = scriptedAccess();
    const refused = await connected(access);
    const before = await refused.callTool({ name: "cypher", arguments: { query } });
    expect(before.isError).toBe(true);
    expect(textOf(before)).toMatch(/apoc\.meta\.schema/);
    expect(ran).toHaveLength(0);
    await refused.close();

    const client = await connected({ ...access, allowProcedures: ["apoc.meta.schema"] });
    const result = await client.callTool({ name: "cypher", arguments: { query } });
    expect(result.isError).toBeFalsy();
    expect(ran.map((r) => r.query)).toEqual([query]);
    await client.close();
  });

  it("answers with Text2Cypher through the ask tool when a chat model is configured", async () => {
    const query = "MATCH (e:Entity) RETURN e.name AS name LIMIT 5";
    const { access } = scriptedAccess();
    const executed: string[] = [];
    access.execute = async (cypher) => {
      executed.push(cypher);
      return { rows: [{ name: "Lumen Robotics" }] };
    };
    const client = await connected(
      access,
      scriptedChat({ text2cypher: `\`\`\`cypher\n${query}\n\`\`\``, answer: "Lumen Robotics." }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["cypher", "ask"]);
    const result = await client.callTool({
      name: "ask",
      arguments: { question: "Which entities are there?" },
    });
    expect(JSON.parse(textOf(result))).toMatchObject({
      cypher: query,
      valid: true,
      rows: [{ name: "Lumen Robotics" }],
      answer: "Lumen Robotics.",
    });
    expect(executed).toEqual([query]);
    await client.close();
  });
  it("runs through ask a model's call to a procedure named in neo4j.readOnlyProcedures", async () => {
    const call = "CALL apoc.meta.stats() YIELD labels RETURN labels";
    const { access } = scriptedAccess();
    const executed: string[] = [];
    access.execute = async (cypher) => {
      executed.push(cypher);
      return { rows: [{ labels: { Entity: 3 } }] };
    };
    const client = await connected(
      { ...access, allowProcedures: ["apoc.meta.stats"] },
      scriptedChat({ text2cypher: call, answer: "Three entities." }),
    );
    const result = await client.callTool({ name: "ask", arguments: { question: "Nodes per label?" } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ cypher: call, valid: true, executed: true });
    expect(executed).toEqual([call]);
    await client.close();
  });

  it("reports through ask, as kgrag ask --json does, a query Neo4j failed at run time and its correction", async () => {
    const divides = "MATCH (e:Entity) RETURN e.name AS name, 1 / size(e.name) AS ratio";
    const fixed = "MATCH (e:Entity) RETURN e.name AS name";
    const { access } = scriptedAccess();
    access.execute = async (cypher) => {
      if (cypher === divides)
        throw new CypherQueryError("/ by zero", "Neo.ClientError.Statement.ArithmeticError");
      return { rows: [{ name: "Lumen Robotics" }] };
    };
    const client = await connected(
      access,
      scriptedChat({ text2cypher: [divides, fixed], answer: "Lumen Robotics." }),
    );
    const result = await client.callTool({ name: "ask", arguments: { question: "Which entities?" } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({
      question: "Which entities?",
      cypher: fixed,
      valid: true,
      errors: [],
      executed: true,
      attempts: 2,
      failedAttempts: [
        { cypher: divides, stage: "run", errors: ["The query failed when it ran: / by zero"] },
      ],
      rows: [{ name: "Lumen Robotics" }],
      answer: "Lumen Robotics.",
    });
    await client.close();
  });

  it("refuses through ask a write the model proposes, with isError, and runs nothing", async () => {
    const { access } = scriptedAccess();
    const executed: string[] = [];
    access.execute = async (cypher) => {
      executed.push(cypher);
      return { rows: [] };
    };
    const write = "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e";
    const client = await connected(access, scriptedChat({ text2cypher: write, answer: "Done." }));
    const result = await client.callTool({ name: "ask", arguments: { question: "Delete everything." } });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({
      cypher: write,
      valid: false,
      executed: false,
      rows: [],
      failedAttempts: [
        { cypher: write, stage: "validation" },
        { cypher: write, stage: "validation" },
      ],
    });
    expect(executed).toEqual([]);
    await client.close();
  });
});
