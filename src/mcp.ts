/**
 * `kgrag/mcp`: the MCP server, apart from the main entry. Its type is the MCP SDK's McpServer,
 * whose declarations name DOM types (HeadersInit): a project that checks library types
 * (`skipLibCheck: false`) without the DOM lib compiles `kgrag` cleanly and needs the DOM lib (or
 * skipLibCheck) only when it imports this entry.
 */
export type { KgragMcpOptions } from "./integrations/mcp/kgrag-mcp-server.js";
export { createKgragMcpServer } from "./integrations/mcp/kgrag-mcp-server.js";
