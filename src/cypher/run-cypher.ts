import neo4j, { type Driver } from "neo4j-driver";
import { type PlainRecord, recordToPlain } from "../storage/neo4j/record-mapping.js";

/**
 * Runs a user's Cypher against Neo4j, read-only three times over: EXPLAIN must report a read-only
 * plan (queryType "r") before anything runs, the query runs in a READ transaction (which the
 * server refuses to let write), with READ routing (replicas in a cluster). A timeout and a row cap
 * keep an exploratory query from running away.
 */

export interface ReadOnlyLimits {
  timeoutMs: number;
  maxRows: number;
}

export interface CypherRows {
  columns: string[];
  rows: PlainRecord[];
  /** True when the query had more rows than maxRows. */
  truncated: boolean;
}

/** The two things the runner asks of Neo4j; the driver implements it, tests script it. */
export interface ReadOnlySession {
  /** queryType of the EXPLAIN plan: "r", "rw", "w" or "s". */
  explain(query: string, params: Record<string, unknown>): Promise<string>;
  run(query: string, params: Record<string, unknown>, limits: ReadOnlyLimits): Promise<CypherRows>;
}

export class ReadOnlyRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReadOnlyRefusal";
  }
}

/** The query ran past its time limit and the server stopped it. */
export class CypherTimeout extends Error {
  constructor(timeoutMs: number) {
    super(
      `Stopped: the query ran longer than its ${timeoutMs} ms time limit. ` +
        "Narrow it (a LIMIT, a label, an indexed property) or raise --timeout.",
    );
    this.name = "CypherTimeout";
  }
}

/** Neo4j's codes for a transaction it terminated at its timeout. */
function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /TransactionTimedOut|Transaction\.Terminated/.test(code);
}

const QUERY_TYPES: Record<string, string> = {
  r: "read-only",
  rw: "read-write",
  w: "write-only",
  s: "schema-changing",
};

export async function runReadOnlyCypher(
  session: ReadOnlySession,
  query: string,
  params: Record<string, unknown>,
  limits: ReadOnlyLimits,
): Promise<CypherRows> {
  const trimmed = query.trim();
  if (trimmed === "") throw new ReadOnlyRefusal("The Cypher query is empty.");
  if (/^(EXPLAIN|PROFILE)\b/i.test(trimmed)) {
    throw new ReadOnlyRefusal(
      "Leave out EXPLAIN/PROFILE: kgrag runs EXPLAIN itself to check the query is read-only.",
    );
  }
  const queryType = await session.explain(trimmed, params);
  if (queryType !== "r") {
    throw new ReadOnlyRefusal(
      `Refused: Neo4j plans this query as ${QUERY_TYPES[queryType] ?? `"${queryType}"`}; ` +
        "`kgrag cypher` only runs read-only queries.",
    );
  }
  return session.run(trimmed, params, limits);
}

/** The driver side: READ sessions, EXPLAIN's queryType, streamed rows cut at the cap. */
export function driverReadOnlySession(driver: Driver, database: string | undefined): ReadOnlySession {
  const readSession = () => driver.session({ database, defaultAccessMode: neo4j.session.READ });
  return {
    async explain(query, params) {
      const session = readSession();
      try {
        const result = await session.executeRead((tx) => tx.run(`EXPLAIN ${query}`, params));
        return result.summary.queryType;
      } finally {
        await session.close();
      }
    },
    async run(query, params, limits) {
      const session = readSession();
      try {
        return await session.executeRead(
          async (tx) => {
            const result = tx.run(query, params);
            const rows: PlainRecord[] = [];
            let truncated = false;
            for await (const record of result) {
              if (rows.length === limits.maxRows) {
                truncated = true;
                break;
              }
              rows.push(recordToPlain(record));
            }
            return { columns: (await result.keys()).map(String), rows, truncated };
          },
          { timeout: limits.timeoutMs },
        );
      } catch (error) {
        if (isTimeout(error)) throw new CypherTimeout(limits.timeoutMs);
        throw error;
      } finally {
        await session.close();
      }
    },
  };
}

/**
 * `--param key=value` values: JSON when the text parses as JSON (numbers, booleans, null, lists,
 * maps; quote a number to keep it text), otherwise the text itself. Whole numbers become Cypher
 * INTEGERs, as LIMIT and list indexes require.
 */
export function parseCypherParams(pairs: string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = at > 0 ? pair.slice(0, at).trim() : "";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw new ReadOnlyRefusal(
        `--param takes key=value with a Cypher parameter name as key, got ${JSON.stringify(pair)}`,
      );
    }
    params[key] = toCypherValue(parseValue(pair.slice(at + 1)));
  }
  return params;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toCypherValue(value: unknown): unknown {
  if (typeof value === "number" && Number.isSafeInteger(value)) return neo4j.int(value);
  if (Array.isArray(value)) return value.map(toCypherValue);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCypherValue(v)]));
  }
  return value;
}
