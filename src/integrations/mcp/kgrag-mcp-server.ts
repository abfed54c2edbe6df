import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Kgrag } from "../../kgrag.js";
import { QUERY_MODES } from "../../query/mode-names.js";
import { getEntity, listCommunities, neighbourhood, searchEntities } from "../graph-lookups.js";
import { queryForAgents } from "../query-for-agents.js";
import { type CypherAccess, registerCypherTools } from "./cypher-tools.js";
import { strictToolArgs } from "./tool-args.js";
import { guarded, json, toolError } from "./tool-results.js";

/** How much one tool answer may carry: agents pay for every token of it. */
export const McpLimitsSchema = z.object({
  entities: z.number().int().min(1).default(10),
  passages: z.number().int().min(1).default(5),
  relationships: z.number().int().min(1).default(20),
  neighbours: z.number().int().min(1).default(30),
});
export type McpLimits = z.infer<typeof McpLimitsSchema>;

export interface KgragMcpOptions {
  name?: string;
  version?: string;
  limits?: Partial<McpLimits>;
  /** The Neo4j database behind the workspace: adds the cypher and ask tools. */
  cypher?: CypherAccess;
}

/**
 * An MCP server over one open workspace: read-only tools an agent calls to query the graph. The
 * caller connects a transport (stdio for `kgrag mcp`) and closes the workspace afterwards.
 */
export function createKgragMcpServer(kgrag: Kgrag, options: KgragMcpOptions = {}): McpServer {
  const limits = McpLimitsSchema.parse(options.limits ?? {});
  const server = new McpServer({ name: options.name ?? "kgrag", version: options.version ?? "0.0.0" });
  registerQueryTool(server, kgrag);
  registerGraphTools(server, kgrag, limits);
  if (options.cypher) registerCypherTools(server, options.cypher, kgrag.services.chat);
  return server;
}

const QUERY_TOOL_ARGS = {
  question: z.string().min(1).describe("the question to answer"),
  mode: z.enum(QUERY_MODES).default("mix").describe("retrieval mode"),
  docIds: z.array(z.string()).optional().describe("only these documents (scope)"),
  metadata: z
    .record(z.string(), z.string())
    .optional()
    .describe("only documents whose metadata has all these key=value pairs (scope)"),
  contextOnly: z.boolean().default(false).describe("return the passages without writing an answer"),
};

function registerQueryTool(server: McpServer, kgrag: Kgrag): void {
  server.registerTool(
    "query",
    {
      title: "Query the knowledge graph",
      description:
        "Answer a question from the indexed documents, with numbered passage citations [n]. Modes: " +
        "naive (passages only), local (entities around the question), global (community reports), " +
        "hybrid (local + global), mix (graph + passages, the default).",
      inputSchema: strictToolArgs("query", QUERY_TOOL_ARGS),
      annotations: { readOnlyHint: true },
    },
    async ({ question, mode, docIds, metadata, contextOnly }) =>
      guarded(async () =>
        json(await queryForAgents(kgrag, question, { mode, docIds, metadata, contextOnly })),
      ),
  );
}

function registerGraphTools(server: McpServer, kgrag: Kgrag, limits: McpLimits): void {
  const { store } = kgrag.services;
  server.registerTool(
    "search_entities",
    {
      title: "Search entities",
      description: "Entities (people, organisations, places, concepts...) whose name or description matches.",
      inputSchema: strictToolArgs("search_entities", {
        text: z.string().min(1).describe("a name or words to look for"),
        limit: z.number().int().min(1).max(100).default(limits.entities),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ text, limit }) =>
      guarded(async () => json({ entities: await searchEntities(store, text, limit) })),
  );
  server.registerTool(
    "get_entity",
    {
      title: "Get an entity",
      description:
        "One entity by name: its description, strongest relationships and the passages that mention it.",
      inputSchema: strictToolArgs("get_entity", {
        name: z.string().min(1).describe("the entity's name (case-insensitive)"),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ name }) =>
      guarded(async () => {
        const entity = await getEntity(store, name, limits);
        return entity ? json(entity) : notFound(name);
      }),
  );
  server.registerTool(
    "neighbourhood",
    {
      title: "Entity neighbourhood",
      description: "The entities and relationships within a few hops of an entity, strongest edges first.",
      inputSchema: strictToolArgs("neighbourhood", {
        name: z.string().min(1).describe("the entity at the centre"),
        depth: z.number().int().min(1).max(3).default(1).describe("hops from the centre"),
        limit: z.number().int().min(1).max(200).default(limits.neighbours).describe("most entities returned"),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ name, depth, limit }) =>
      guarded(async () => {
        const found = await neighbourhood(store, name, depth, limit);
        return found ? json(found) : notFound(name);
      }),
  );
  server.registerTool(
    "communities",
    {
      title: "Communities",
      description: "The graph's communities (Louvain clusters) with their report titles and summaries.",
      inputSchema: strictToolArgs("communities", {
        level: z.number().int().min(0).optional().describe("only this level (0 = top)"),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ level }) => guarded(async () => json({ communities: await listCommunities(store, level) })),
  );
}

function notFound(name: string): CallToolResult {
  return toolError(`No entity named ${JSON.stringify(name)}; try search_entities first.`);
}
