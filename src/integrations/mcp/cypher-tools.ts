import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { liveCypherOf, liveExecutor, resolveSchema, text2CypherSetup } from "../../cypher/live-cypher.js";
import { driverReadOnlySession, type ReadOnlySession, runReadOnlyCypher } from "../../cypher/run-cypher.js";
import type { GraphSchema } from "../../cypher/schema.js";
import {
  answerWithCypher,
  type CypherExecutor,
  TEXT2CYPHER_DEFAULTS,
  textToCypherReport,
} from "../../cypher/text2cypher.js";
import { validateCypher } from "../../cypher/validator.js";
import type { ChatModel } from "../../llm/chat-model.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { strictToolArgs } from "./tool-args.js";
import { guarded, json, toolError } from "./tool-results.js";

/** The Neo4j database behind a workspace, as the cypher and ask tools use it (tests script it). */
export interface CypherAccess {
  workspace: string;
  /** Runs a query after EXPLAIN says it only reads, in a READ transaction. */
  session: ReadOnlySession;
  execute: CypherExecutor;
  schema(): Promise<GraphSchema>;
  /** Procedures the user vouches only read (`neo4j.readOnlyProcedures`): the cypher tool may call them. */
  allowProcedures?: readonly string[];
}

/**
 * The live database's access, or undefined on the embedded store (no Cypher there).
 * `allowProcedures`: the config's `neo4j.readOnlyProcedures`.
 */
export function cypherAccessOf(
  store: GraphStore,
  allowProcedures: readonly string[] = [],
): CypherAccess | undefined {
  const live = liveCypherOf(store, allowProcedures);
  if (!live) return undefined;
  let schema: Promise<GraphSchema> | undefined;
  return {
    workspace: live.workspace,
    session: driverReadOnlySession(live.driver, live.database),
    execute: liveExecutor(live),
    allowProcedures: live.allowProcedures,
    schema: () => {
      schema ??= resolveSchema(live, undefined);
      return schema;
    },
  };
}

/** `cypher` (read-only, validated) always; `ask` (Text2Cypher) only when a chat model is configured. */
export function registerCypherTools(server: McpServer, access: CypherAccess, chat: ChatModel | null): void {
  server.registerTool(
    "cypher",
    {
      title: "Run read-only Cypher",
      description:
        "Run one read-only Cypher query on the Neo4j graph. kgrag's own graph is shared by workspaces: " +
        "filter with $workspace (filled in). Writes, procedures that write and file access are refused.",
      inputSchema: strictToolArgs("cypher", {
        query: z.string().min(1).describe("one Cypher statement"),
        params: z.record(z.string(), z.unknown()).default({}).describe("query parameters"),
        maxRows: z.number().int().min(1).max(1000).default(TEXT2CYPHER_DEFAULTS.maxRows),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, params, maxRows }) => guarded(() => runCypherTool(access, query, params, maxRows)),
  );
  if (!chat) return;
  server.registerTool(
    "ask",
    {
      title: "Ask with Cypher",
      description:
        "Answer a factual lookup (counts, lists, who-is-related-to-whom) by writing one validated " +
        "read-only Cypher query, running it and answering from the rows. A query that would write, " +
        "or that fails validation after a correction, is refused and never run.",
      inputSchema: strictToolArgs("ask", { question: z.string().min(1) }),
      annotations: { readOnlyHint: true },
    },
    async ({ question }) =>
      guarded(async () => {
        const setup = text2CypherSetup(await access.schema(), access);
        const result = await answerWithCypher(
          question,
          { chat, schema: setup.schema, execute: access.execute },
          setup.options,
        );
        const reply = json(textToCypherReport(result));
        // A refused or failed query is an error the agent can act on, not an empty answer.
        const failed = result.noCypherReason === undefined && (!result.valid || !result.executed);
        return failed ? { ...reply, isError: true } : reply;
      }),
  );
}

async function runCypherTool(
  access: CypherAccess,
  query: string,
  given: Record<string, unknown>,
  maxRows: number,
): Promise<CallToolResult> {
  const params = { workspace: access.workspace, ...given };
  const allowProcedures = access.allowProcedures ?? [];
  const checked = validateCypher(query, await access.schema(), {
    parameters: Object.keys(params),
    allowProcedures,
  });
  if (!checked.valid) {
    return toolError(`Refused:\n${checked.errors.join("\n")}`);
  }
  const limits = { timeoutMs: TEXT2CYPHER_DEFAULTS.timeoutMs, maxRows, allowProcedures };
  return json({
    ...(await runReadOnlyCypher(access.session, query, params, limits)),
    warnings: checked.warnings,
  });
}
