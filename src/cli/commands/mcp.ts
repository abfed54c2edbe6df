import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export interface McpCommandOptions {
  workspace?: string;
}

export function registerMcpCommand(program: Command, open: OpenKgrag): void {
  program
    .command("mcp")
    .description(
      "Serve the workspace to agents over the Model Context Protocol (stdio): query, search_entities, " +
        "get_entity, neighbourhood, communities, and on Neo4j cypher and ask",
    )
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .action(async (opts: McpCommandOptions) => (await import("../actions/mcp.js")).mcpAction(open, opts));
}
