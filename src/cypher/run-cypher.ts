import neo4j, { type Driver } from "neo4j-driver";
import { type PlainRecord, recordToPlain } from "../storage/neo4j/record-mapping.js";
import { commandRefusals, procedureRefusals, schemaPlanRefusal } from "./introspection.js";

/**
 * Runs a user's Cypher against Neo4j, read-only three times over: EXPLAIN must report a read-only
 * plan (queryType "r") before anything runs, the query runs in a READ transaction (which the
 * server refuses to let write), with READ routing (replicas in a cluster). A timeout and a row cap
 * keep an exploratory query from running away. Where the plan misjudges (TERMINATE and procedures
 * that change the server's state planned as reads, read-only DBMS procedures as schema writes) the
 * parse tree decides, and only procedures on the read-only list run: see introspection.ts.
 */

export interface ReadOnlyLimits {
  timeoutMs: number;
  maxRows: number;
  /**
   * How this caller can allow a query more time, for the timeout message: a CLI flag, a request
   * field. Left out where the caller cannot, so no message points at a setting that is not there.
   */
  raiseTimeout?: string;
  /**
   * Procedures besides kgrag's read-only list that the user vouches only read (the config's
   * `neo4j.readOnlyProcedures`, `kgrag cypher --allow-procedure`): exact names. They pass the
   * pre-check only; EXPLAIN must still plan the query as a read.
   */
  allowProcedures?: readonly string[];
}

/** How the CLI commands (`kgrag cypher`, `ask`, `chat`) allow more time. */
export const CLI_RAISE_TIMEOUT = "raise --timeout";

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
  constructor(timeoutMs: number, raiseTimeout?: string) {
    super(
      `Stopped: the query ran longer than its ${timeoutMs} ms time limit. ` +
        `Narrow it (a LIMIT, a label, an indexed property)${raiseTimeout ? ` or ${raiseTimeout}` : ""}.`,
    );
    this.name = "CypherTimeout";
  }
}

/**
 * Neo4j refused or failed the query itself (a syntax error, a missing parameter, an unknown
 * procedure, a runtime error such as / by zero): the caller's query is at fault, not the server.
 */
export class CypherQueryError extends Error {
  constructor(
    message: string,
    /** Neo4j's status code, e.g. Neo.ClientError.Statement.SyntaxError. */
    readonly neo4jCode: string,
  ) {
    super(message);
    this.name = "CypherQueryError";
  }

  get missingParameter(): boolean {
    return this.neo4jCode === "Neo.ClientError.Statement.ParameterMissing";
  }
}

/** Statement and procedure errors are about the query; other client errors (auth, timeouts) are not. */
function queryErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return undefined;
  return /^Neo\.ClientError\.(Statement|Procedure)\./.test(code) ? code : undefined;
}

const EXPLAIN = "EXPLAIN ";

/**
 * Neo4j's message for `EXPLAIN <query>` as if the query had been sent alone: the positions it
 * gives and the line it quotes (with its caret) lose the EXPLAIN that kgrag put in front.
 */
export function withoutExplainPrefix(message: string): string {
  const shift = EXPLAIN.length;
  const lines = message
    .replace(/\(line (\d+), column (\d+) \(offset: (\d+)\)\)/g, (whole, line, column, offset) => {
      if (Number(offset) < shift) return whole;
      const onFirstLine = line === "1" && Number(column) > shift;
      const shownColumn = onFirstLine ? Number(column) - shift : Number(column);
      return `(line ${line}, column ${shownColumn} (offset: ${Number(offset) - shift}))`;
    })
    .split("\n");
  return lines
    .map((line, i) => {
      if (line.startsWith(`"${EXPLAIN}`)) return `"${line.slice(shift + 1)}`;
      const quoted = lines[i - 1] ?? "";
      const caret = /^ +\^$/.test(line) && quoted.startsWith(`"${EXPLAIN}`);
      return caret ? line.slice(shift) : line;
    })
    .join("\n");
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
  // Refused before EXPLAIN: none of these reaches the server.
  const commands = [...commandRefusals(trimmed), ...procedureRefusals(trimmed, limits.allowProcedures)];
  if (commands.length > 0) throw new ReadOnlyRefusal(refusal(commands.join("; ")));
  const values = cypherParams(params);
  const queryType = await session.explain(trimmed, values);
  if (queryType !== "r") {
    // Neo4j plans every DBMS procedure as "s": the read-only ones on the list run all the same.
    const why = queryType === "s" ? schemaPlanRefusal(trimmed, plannedAs(queryType)) : plannedAs(queryType);
    if (why !== undefined) throw new ReadOnlyRefusal(refusal(why));
  }
  return session.run(trimmed, values, limits);
}

function plannedAs(queryType: string): string {
  return `Neo4j plans this query as ${QUERY_TYPES[queryType] ?? `"${queryType}"`}`;
}

function refusal(why: string): string {
  return `Refused: ${why}; kgrag runs only read-only Cypher.`;
}

/** The driver side: READ sessions, EXPLAIN's queryType, streamed rows cut at the cap. */
export function driverReadOnlySession(driver: Driver, database: string | undefined): ReadOnlySession {
  const readSession = () => driver.session({ database, defaultAccessMode: neo4j.session.READ });
  return {
    async explain(query, params) {
      const session = readSession();
      try {
        const result = await session.executeRead((tx) => tx.run(`${EXPLAIN}${query}`, params));
        return result.summary.queryType;
      } catch (error) {
        const code = queryErrorCode(error);
        if (code) throw new CypherQueryError(withoutExplainPrefix((error as Error).message), code);
        throw error;
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
        if (isTimeout(error)) throw new CypherTimeout(limits.timeoutMs, limits.raiseTimeout);
        const code = queryErrorCode(error);
        if (code) throw new CypherQueryError((error as Error).message.trim(), code);
        throw error;
      } finally {
        await session.close();
      }
    },
  };
}

/**
 * `--param key=value` values: JSON when the text parses as JSON (numbers, booleans, null, lists,
 * maps; quote a number to keep it text), otherwise the text itself. Plain values: runReadOnlyCypher
 * makes whole numbers INTEGERs as it does for every caller's parameters.
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
    params[key] = parseValue(pair.slice(at + 1));
  }
  return params;
}

/**
 * Parameter values as Cypher needs them: whole numbers become INTEGERs (LIMIT, SKIP, range() and
 * list indexes refuse the FLOAT a JavaScript number is sent as), whoever supplied them (the CLI's
 * --param, an HTTP body, an MCP call).
 */
export function cypherParams(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, toCypherValue(value)]));
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
  if (value && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCypherValue(v)]));
  }
  return value;
}
