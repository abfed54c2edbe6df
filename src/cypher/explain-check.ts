import neo4j, { type Driver, type Session } from "neo4j-driver";

export interface ExplainVerdict {
  readOnly: boolean;
  /** The server's query type: "r" read only, "rw", "w" or "s" (schema write). */
  queryType: string;
}

/** The part of a driver Session EXPLAIN needs (what a test double implements). */
export interface ExplainSession {
  run(query: string, params: Record<string, unknown>): { summary(): Promise<{ queryType: string }> };
}

/**
 * Asks the server to plan the query without running it (EXPLAIN) and reports whether it is
 * read-only: the live second opinion after the parse-tree check, the guard neo4j-graphrag applies
 * too. `kgrag ask`/`chat` get the same check through run-cypher.ts's read-only runner.
 */
export async function explainIsReadOnly(
  target: Driver | Session | ExplainSession,
  query: string,
  options: { database?: string; params?: Record<string, unknown> } = {},
): Promise<ExplainVerdict> {
  const explained = `EXPLAIN ${query}`;
  const params = options.params ?? {};
  try {
    const summary =
      "run" in target
        ? await target.run(explained, params).summary()
        : (
            await target.executeQuery(explained, params, {
              routing: neo4j.routing.READ,
              database: options.database,
            })
          ).summary;
    return { readOnly: summary.queryType === "r", queryType: summary.queryType };
  } catch (error) {
    // A server that refuses even to plan the query in a read transaction has proved it writes.
    if (isAccessModeError(error)) return { readOnly: false, queryType: "w" };
    throw error;
  }
}

function isAccessModeError(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "Neo.ClientError.Statement.AccessMode";
}
