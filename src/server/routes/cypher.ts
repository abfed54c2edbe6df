import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CypherChatSession } from "../../cypher/chat-session.js";
import {
  liveCypherOf,
  liveExecutor,
  readOnlyProceduresOf,
  resolveSchema,
  text2CypherSetup,
} from "../../cypher/live-cypher.js";
import {
  CypherQueryError,
  CypherTimeout,
  driverReadOnlySession,
  ReadOnlyRefusal,
  runReadOnlyCypher,
} from "../../cypher/run-cypher.js";
import {
  answerWithCypher,
  type TextToCypherDeps,
  type TextToCypherResult,
} from "../../cypher/text2cypher.js";
import { runQuery } from "../../query/query-engine.js";
import type { ServerContext } from "../context.js";
import { ApiError, badRequest, notFound } from "../errors.js";
import { workspaceOf } from "../request-workspace.js";
import type { ServedWorkspace } from "../workspaces.js";

/** The limits of `kgrag cypher` (its --timeout and --max-rows defaults). */
const CYPHER_TIMEOUT_MS = 30_000;
const CYPHER_MAX_ROWS = 1000;
/** The most a request may ask for with `timeoutMs`. */
const MAX_CYPHER_TIMEOUT_MS = 600_000;
const timeoutField = z.number().int().min(1).max(MAX_CYPHER_TIMEOUT_MS).default(CYPHER_TIMEOUT_MS);
/** How a REST caller (and the web app, which calls the same routes) allows a query more time. */
const REQUEST_RAISE_TIMEOUT = "send a larger timeoutMs in the request body";
const SESSION_RAISE_TIMEOUT = "start a new chat session with a larger timeoutMs";
/** Chat sessions kept per workspace; the oldest goes first. */
const MAX_SESSIONS = 100;

const needsNeo4j = () =>
  new ApiError(
    404,
    "neo4j_required",
    "This workspace uses the embedded SQLite store; Cypher, Text2Cypher and graph chat need the Neo4j backend (KGRAG_STORAGE=neo4j, see docs/neo4j.md).",
  );

export async function cypherRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const sessions = new Map<string, { workspace: string; chat: CypherChatSession }>();

  const liveOf = (request: FastifyRequest) => {
    const workspace = workspaceOf(request, ctx.registry);
    const { store, config } = workspace.kgrag.services;
    const live = liveCypherOf(store, readOnlyProceduresOf(config));
    if (!live) throw needsNeo4j();
    return { workspace, live };
  };

  api.post(
    "/api/v1/cypher",
    {
      schema: {
        tags: ["neo4j"],
        summary: "Run a read-only Cypher query (the checks and limits of `kgrag cypher`)",
        body: z.object({
          query: z.string().trim().min(1, "query must not be empty"),
          params: z.record(z.string(), z.unknown()).default({}),
          limit: z.number().int().min(1).max(CYPHER_MAX_ROWS).default(CYPHER_MAX_ROWS),
          timeoutMs: timeoutField,
        }),
      },
    },
    async (request) => {
      const { live } = liveOf(request);
      const { query, params, limit, timeoutMs } = request.body;
      const withWorkspace = /\$workspace\b/.test(query) && params.workspace === undefined;
      const started = performance.now();
      try {
        const result = await runReadOnlyCypher(
          driverReadOnlySession(live.driver, live.database),
          query,
          withWorkspace ? { ...params, workspace: live.workspace } : params,
          {
            timeoutMs,
            maxRows: limit,
            raiseTimeout: REQUEST_RAISE_TIMEOUT,
            allowProcedures: live.allowProcedures,
          },
        );
        return { ...result, elapsedMs: Math.round(performance.now() - started) };
      } catch (error) {
        if (error instanceof ReadOnlyRefusal) throw new ApiError(400, "cypher_refused", error.message);
        if (error instanceof CypherQueryError) throw new ApiError(400, "cypher_error", error.message);
        if (error instanceof CypherTimeout) throw new ApiError(504, "query_timeout", error.message);
        throw error;
      }
    },
  );

  api.post(
    "/api/v1/cypher/ask",
    {
      schema: {
        tags: ["neo4j"],
        summary: "Text2Cypher: a question answered by one validated read-only query",
        body: z.object({
          question: z.string().trim().min(1),
          external: z.boolean().default(false),
          timeoutMs: timeoutField,
        }),
      },
    },
    async (request) => {
      const { workspace, live } = liveOf(request);
      const { question, external, timeoutMs } = request.body;
      const limits = { timeoutMs, raiseTimeout: REQUEST_RAISE_TIMEOUT };
      const { deps, options } = await textToCypher(workspace, live, external, limits);
      const result = await answerWithCypher(question, deps, options);
      return { ...queryReport(result), answer: result.answer };
    },
  );

  api.post(
    "/api/v1/chat/sessions",
    {
      schema: {
        tags: ["neo4j"],
        summary: "Start a graph chat session",
        body: z.object({ timeoutMs: timeoutField }).default({ timeoutMs: CYPHER_TIMEOUT_MS }),
      },
    },
    async (request) => {
      const { workspace, live } = liveOf(request);
      const limits = { timeoutMs: request.body.timeoutMs, raiseTimeout: SESSION_RAISE_TIMEOUT };
      const { deps, options } = await textToCypher(workspace, live, false, limits);
      const services = workspace.kgrag.services;
      const chat = new CypherChatSession(
        {
          ...deps,
          ragAnswer: async (question) => (await runQuery(services, question, { mode: "global" })).answer,
        },
        options,
      );
      const id = randomUUID();
      sessions.set(id, { workspace: workspace.id, chat });
      for (const old of [...sessions.keys()].slice(0, Math.max(0, sessions.size - MAX_SESSIONS)))
        sessions.delete(old);
      return { id };
    },
  );

  api.post(
    "/api/v1/chat/sessions/:id/messages",
    {
      schema: {
        tags: ["neo4j"],
        summary: "Ask in a chat session (follow-ups see the earlier turns)",
        params: z.object({ id: z.string().min(1) }),
        body: z.object({ message: z.string().trim().min(1, "message must not be empty") }),
      },
    },
    async (request) => {
      const { workspace } = liveOf(request);
      const session = sessions.get(request.params.id);
      if (!session || session.workspace !== workspace.id) throw notFound(`Chat session ${request.params.id}`);
      const turn = await session.chat.ask(request.body.message);
      const cypher = turn.cypherResult;
      return {
        route: turn.route === "rag" ? "graphrag" : "cypher",
        ...(cypher?.cypher ? queryReport(cypher) : {}),
        answer: turn.answer,
      };
    },
  );
}

/**
 * What /cypher/ask and a chat turn say about the query: the last one, whether it passed the checks
 * and ran (ok is false for a query Neo4j failed at run time, with Neo4j's message among the
 * messages), and every failed attempt a correction round was about.
 */
function queryReport(result: TextToCypherResult) {
  return {
    cypher: result.cypher ?? "",
    validation: { ok: result.valid && result.executed, messages: [...result.errors, ...result.warnings] },
    executed: result.executed,
    rows: result.rows,
    attempts: result.attempts,
    failedAttempts: result.failedAttempts,
  };
}

async function textToCypher(
  workspace: ServedWorkspace,
  live: NonNullable<ReturnType<typeof liveCypherOf>>,
  external: boolean,
  limits: { timeoutMs: number; raiseTimeout: string },
) {
  const chat = workspace.kgrag.services.chat;
  if (!chat)
    throw badRequest(
      "Text2Cypher needs an LLM to write Cypher: start the server with KGRAG_LLM_MODEL set",
      "llm_required",
    );
  const { schema, options } = text2CypherSetup(
    await resolveSchema(live, undefined),
    live,
    external ? "external" : "workspace",
  );
  const deps: TextToCypherDeps = { chat, schema, execute: liveExecutor(live, limits.raiseTimeout) };
  return { deps, options: { ...options, timeoutMs: limits.timeoutMs, maxRows: CYPHER_MAX_ROWS } };
}
