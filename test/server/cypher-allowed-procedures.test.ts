import Fastify from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/llm/chat-model.js";
import type { ServerContext } from "../../src/server/context.js";
import { handleError } from "../../src/server/errors.js";
import { cypherRoutes } from "../../src/server/routes/cypher.js";
import { neo4jConfig, planScriptedDriver, planScriptedStore } from "../support/plan-scripted-neo4j.js";

/**
 * POST /api/v1/cypher with the config's neo4j.readOnlyProcedures, on a Neo4j workspace whose
 * EXPLAIN plans are scripted (the test database has no APOC).
 */
const apps: ReturnType<typeof Fastify>[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(
  readOnlyProcedures: string[],
  planOf: (query: string) => string = () => "r",
  chat: ChatModel | null = null,
) {
  const fake = planScriptedDriver(planOf);
  const services = { store: planScriptedStore(fake.driver), config: neo4jConfig(readOnlyProcedures), chat };
  const workspace = { id: "ws", kgrag: { services } };
  const ctx = { registry: { pick: () => workspace } } as unknown as ServerContext;
  const app = Fastify();
  apps.push(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  await cypherRoutes(app, ctx);
  const post = async (query: string) => {
    const response = await app.inject({ method: "POST", url: "/api/v1/cypher", payload: { query } });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  const postTo = async (url: string, payload: Record<string, unknown>) => {
    const response = await app.inject({ method: "POST", url, payload });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  return { post, postTo, ...fake };
}

/** A model that writes `cypher` for every question and answers from whatever rows came back. */
function modelWriting(cypher: string): ChatModel {
  return {
    model: "scripted",
    chat: async (request: ChatRequest): Promise<ChatResponse> => ({
      text: request.stage === "text2cypher" ? cypher : "One row.",
      usage: { promptTokens: 1, completionTokens: 1 },
      cached: false,
    }),
  };
}

describe("POST /api/v1/cypher: neo4j.readOnlyProcedures", () => {
  it("runs a listed procedure once EXPLAIN plans it as a read", async () => {
    const { post, explained, ran } = await serve(["apoc.meta.schema"]);
    const { status, body } = await post("CALL apoc.meta.schema()");
    expect(status).toBe(200);
    expect(body).toMatchObject({ columns: ["n"], rows: [{ n: 1 }], truncated: false });
    expect(explained).toEqual(["CALL apoc.meta.schema()"]);
    expect(ran).toEqual(["CALL apoc.meta.schema()"]);
  });

  it("refuses an unlisted one before EXPLAIN, naming the setting", async () => {
    const { post, explained } = await serve(["apoc.meta.schema"]);
    const { status, body } = await post("CALL apoc.meta.data()");
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: "cypher_refused",
      message: expect.stringMatching(
        /procedure apoc\.meta\.data is not one of the read-only procedures kgrag runs.*neo4j\.readOnlyProcedures/,
      ),
    });
    expect(explained).toEqual([]);
  });

  it("refuses a listed procedure that Neo4j plans as a write", async () => {
    const { post, explained, ran } = await serve(["apoc.create.node"], () => "rw");
    const { status, body } = await post("CALL apoc.create.node(['X'], {}) YIELD node RETURN node");
    expect(status).toBe(400);
    expect(body.error).toEqual({
      code: "cypher_refused",
      message: "Refused: Neo4j plans this query as read-write; kgrag runs only read-only Cypher.",
    });
    expect(explained).toHaveLength(1);
    expect(ran).toEqual([]);
  });
});

describe("Text2Cypher routes: the model's queries get the same neo4j.readOnlyProcedures", () => {
  const call = "CALL apoc.meta.stats() YIELD labels RETURN labels";

  it("POST /api/v1/cypher/ask runs a model's call to a listed procedure, and refuses an unlisted one", async () => {
    const listed = await serve(["apoc.meta.stats"], () => "r", modelWriting(call));
    const { status, body } = await listed.postTo("/api/v1/cypher/ask", { question: "Nodes per label?" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ cypher: call, executed: true, answer: "One row." });
    expect(listed.ran).toEqual([call]);

    const unlisted = await serve([], () => "r", modelWriting(call));
    const refused = await unlisted.postTo("/api/v1/cypher/ask", { question: "Nodes per label?" });
    expect(refused.body).toMatchObject({ executed: false });
    expect(JSON.stringify(refused.body.validation)).toMatch(/apoc\.meta\.stats/);
    expect(unlisted.ran).toEqual([]);
  });

  it("a chat session's turn runs a model's call to a listed procedure", async () => {
    const { postTo, ran } = await serve(["apoc.meta.stats"], () => "r", modelWriting(call));
    const session = await postTo("/api/v1/chat/sessions", {});
    const turn = await postTo(`/api/v1/chat/sessions/${String(session.body.id)}/messages`, {
      message: "How many nodes per label?",
    });
    expect(turn.body).toMatchObject({ route: "cypher", cypher: call, executed: true });
    expect(ran).toEqual([call]);
  });
});
