import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A tool's answer as pretty JSON text, which every MCP client shows and every model reads. */
export function json(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

/** An answer the agent should read as a failure it can correct (a wrong name, a refused query). */
export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

/** A failing tool answers with its message (the agent can correct itself) instead of breaking the session. */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return toolError(error instanceof Error ? error.message : String(error));
  }
}
