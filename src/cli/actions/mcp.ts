import { readFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readOnlyProceduresOf } from "../../cypher/live-cypher.js";
import { cypherAccessOf } from "../../integrations/mcp/cypher-tools.js";
import { createKgragMcpServer } from "../../integrations/mcp/kgrag-mcp-server.js";
import { packagePath } from "../../util/paths.js";
import type { McpCommandOptions } from "../commands/mcp.js";
import type { OpenKgrag } from "../open.js";

/**
 * `kgrag mcp`: the workspace's read-only tools over stdio until the client hangs up. stdout carries
 * the protocol only; notices go to stderr.
 */
export async function mcpAction(open: OpenKgrag, opts: McpCommandOptions): Promise<void> {
  const kgrag = await open({ ...opts, usesModel: true });
  const cypher = cypherAccessOf(kgrag.services.store, readOnlyProceduresOf(kgrag.services.config));
  const server = createKgragMcpServer(kgrag, { version: packageVersion(), ...(cypher ? { cypher } : {}) });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once("end", resolve);
  });
  try {
    await server.connect(transport);
    await closed;
  } finally {
    await server.close();
    await kgrag.close();
  }
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;
}
