import { randomUUID } from "node:crypto";
import neo4j, { type Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { explainIsReadOnly } from "../../src/cypher/explain-check.js";
import { liveExecutor, text2CypherSetup } from "../../src/cypher/live-cypher.js";
import { introspectSchema } from "../../src/cypher/schema-introspect.js";
import { answerWithCypher, type CypherExecutor } from "../../src/cypher/text2cypher.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/llm/chat-model.js";
import { liveNeo4j } from "../support/live-neo4j.js";

/**
 * The same pipeline as text2cypher.test.ts, executed on a real database. The data uses kgrag's own
 * labels under a fresh workspace (no new label tokens left behind) and is deleted afterwards.
 */
const uri = liveNeo4j?.uri;
const database = liveNeo4j?.database;
const workspace = `t2c-test-${randomUUID()}`;

const COUNT_MENTIONS =
  "MATCH (c:Chunk {workspace: $workspace})-[:MENTIONS]->(e:Entity {workspace: $workspace}) " +
  "WHERE e.name = 'Alice' RETURN count(DISTINCT c) AS chunks";

function scriptedChat(replies: string[]): ChatModel {
  return {
    model: "scripted",
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const text = replies.shift();
      if (text === undefined) throw new Error(`no scripted reply left for ${request.stage}`);
      return { text, usage: { promptTokens: 0, completionTokens: 0 }, cached: false };
    },
  };
}

describe.skipIf(!uri)("Text2Cypher on a live Neo4j (skipped: NEO4J_URI not set)", () => {
  let driver: Driver;
  const run = (cypher: string) => driver.executeQuery(cypher, { workspace }, { database });

  beforeAll(async () => {
    driver = neo4j.driver(
      uri ?? "",
      neo4j.auth.basic(liveNeo4j?.username ?? "neo4j", liveNeo4j?.password ?? ""),
    );
    // A document too: its label is what marks the database as holding kgrag's graph, which is
    // then asked about one workspace (the test must not rely on another test having written one).
    await run(
      "CREATE (d:Document {workspace: $workspace, id: 'd1'}) " +
        "CREATE (a:Entity {workspace: $workspace, key: 'alice', name: 'Alice', type: 'person'}) " +
        "CREATE (b:Entity {workspace: $workspace, key: 'bob', name: 'Bob', type: 'person'}) " +
        "CREATE (a)-[:RELATED {workspace: $workspace, key: 'alice|bob', weight: 1.0}]->(b) " +
        "CREATE (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace, id: 'c1', text: 'Alice met Bob.'})-[:MENTIONS]->(a) " +
        "CREATE (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace, id: 'c2', text: 'Alice left.'})-[:MENTIONS]->(a)",
    );
  });

  afterAll(async () => {
    await run("MATCH (n {workspace: $workspace}) DETACH DELETE n");
    await driver.close();
  });

  it("introspects, validates, executes read-only and answers from the rows", async () => {
    const live = { driver, database, workspace };
    const { schema, options } = text2CypherSetup(
      await introspectSchema(driver, database, { refresh: true }),
      live,
    );
    expect(schema.patterns).toContainEqual({ start: "Chunk", type: "MENTIONS", end: "Entity" });
    const chat = scriptedChat([COUNT_MENTIONS, "Alice is mentioned in 2 chunks."]);
    const result = await answerWithCypher(
      "How many chunks mention Alice?",
      { chat, schema, execute: liveExecutor(live) },
      options,
    );
    expect(result).toMatchObject({
      valid: true,
      rows: [{ chunks: 2 }],
      answer: "Alice is mentioned in 2 chunks.",
    });
  });

  it("never sends a write to the database, and EXPLAIN flags one without running it", async () => {
    const execute = vi.fn<CypherExecutor>(liveExecutor({ driver, database, workspace }));
    const { schema, options } = text2CypherSetup(await introspectSchema(driver, database), { workspace });
    const write = "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e";
    const result = await answerWithCypher(
      "Delete Alice",
      { chat: scriptedChat([write, write]), schema, execute },
      options,
    );
    expect(result.valid).toBe(false);
    expect(execute).not.toHaveBeenCalled();
    expect(await explainIsReadOnly(driver, write, { database, params: { workspace } })).toMatchObject({
      readOnly: false,
    });
    const left = await run("MATCH (e:Entity {workspace: $workspace}) RETURN count(e) AS n");
    expect(left.records[0]?.get("n").toNumber()).toBe(2);
  });

  it("rejects a query without the workspace filter, which would read every workspace, and corrects it", async () => {
    // Another workspace in the same database, holding its own Alice.
    const other = `${workspace}-other`;
    await driver.executeQuery(
      "CREATE (:Entity {workspace: $other, key: 'alice', name: 'Alice', type: 'person'})",
      { other },
      { database },
    );
    try {
      const { schema, options } = text2CypherSetup(
        await introspectSchema(driver, database, { refresh: true }),
        { workspace },
      );
      const prompts: string[] = [];
      const replies = [
        "MATCH (e:Entity) WHERE e.name = 'Alice' RETURN count(e) AS alices",
        "MATCH (e:Entity {workspace: $workspace}) WHERE e.name = 'Alice' RETURN count(e) AS alices",
        "One Alice.",
      ];
      const chat: ChatModel = {
        model: "scripted",
        async chat(request: ChatRequest): Promise<ChatResponse> {
          prompts.push(request.messages.at(-1)?.content ?? "");
          return {
            text: replies.shift() ?? "",
            usage: { promptTokens: 0, completionTokens: 0 },
            cached: false,
          };
        },
      };
      const result = await answerWithCypher(
        "How many entities are called Alice?",
        { chat, schema, execute: liveExecutor({ driver, database, workspace }) },
        options,
      );
      expect(result).toMatchObject({ valid: true, attempts: 2, rows: [{ alices: 1 }] });
      // The correction names the missing filter and does not forbid the parameter it needs.
      expect(prompts[1]).toMatch(/No workspace filter: give the nodes you match \{workspace: \$workspace\}/);
      expect(prompts[1]).toMatch(/not \$parameters, except those the notes about this database supply/);
    } finally {
      await driver.executeQuery("MATCH (n {workspace: $other}) DETACH DELETE n", { other }, { database });
    }
  });
});
