import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { configFromEnv } from "../../config.js";
import {
  bindCypherParams,
  type CypherStatement,
  cypherDir,
  listCypherFiles,
  readCypherFile,
  usedParameters,
} from "../../cypher/cypher-files.js";
import { readOnlyProceduresOf } from "../../cypher/live-cypher.js";
import {
  CLI_RAISE_TIMEOUT,
  CypherQueryError,
  type CypherRows,
  driverReadOnlySession,
  parseCypherParams,
  ReadOnlyRefusal,
  type ReadOnlySession,
  runReadOnlyCypher,
} from "../../cypher/run-cypher.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { DriverRunner } from "../../storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../../storage/neo4j/neo4j-store.js";
import { type CypherOptions, NEEDS_NEO4J, type OpenServices } from "../commands/cypher.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

/** `kgrag cypher`: one read-only query (or .cypher file) on the Neo4j backend, as a table or JSON. */
export async function cypherAction(
  open: OpenServices,
  query: string | undefined,
  opts: CypherOptions,
): Promise<void> {
  assertNeo4jConfigured();
  const { services, close } = await open(opts);
  try {
    const session = readOnlySessionOf(services.store);
    if (!session) throw new UsageError(NEEDS_NEO4J);
    const rows = await asUsageError(() => {
      const { text, params } = resolveQuery(query, opts, workspaceOf(services.store));
      return runReadOnlyCypher(session, text, params, {
        timeoutMs: opts.timeout,
        maxRows: opts.maxRows,
        raiseTimeout: CLI_RAISE_TIMEOUT,
        allowProcedures: [...readOnlyProceduresOf(services.config), ...opts.allowProcedure],
      });
    });
    if (opts.json) printJson(rows);
    else process.stdout.write(`${formatCypherRows(rows, opts.maxRows)}\n`);
  } finally {
    await close();
  }
}

/**
 * A refused query, or one Neo4j cannot run (syntax, a missing parameter), is a usage error (exit
 * code 2), like a wrong invocation.
 */
async function asUsageError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReadOnlyRefusal) throw new UsageError(error.message);
    if (error instanceof CypherQueryError) {
      const hint = error.missingParameter ? "\nPass them with --param name=value." : "";
      throw new UsageError(`Neo4j cannot run this query: ${error.message}${hint}`);
    }
    throw error;
  }
}

/** Fails before opening anything when the environment selects the embedded store. */
function assertNeo4jConfigured(): void {
  let storage: string;
  try {
    storage = configFromEnv().storage;
  } catch {
    return; // an invalid configuration is reported by open() with its own message
  }
  if (storage !== "neo4j") throw new UsageError(NEEDS_NEO4J);
}

function readOnlySessionOf(store: GraphStore): ReadOnlySession | undefined {
  if (!(store instanceof Neo4jGraphStore) || !(store.connection.runner instanceof DriverRunner))
    return undefined;
  const runner = store.connection.runner;
  return driverReadOnlySession(runner.driver, runner.database);
}

function workspaceOf(store: GraphStore): string {
  return store instanceof Neo4jGraphStore ? store.workspace : "";
}

/** The query text and its parameters; `$workspace` is filled in wherever the query uses it. */
export function resolveQuery(
  query: string | undefined,
  opts: Pick<CypherOptions, "file" | "param">,
  workspace: string,
): { text: string; params: Record<string, unknown> } {
  if (query !== undefined && opts.file !== undefined) {
    throw new UsageError("Give either a query or --file, not both.");
  }
  const given = parseCypherParams(opts.param);
  if (opts.file !== undefined) {
    const statement = readCypherFile(findCypherFile(opts.file));
    return { text: statement.text, params: bindFileParams(statement, given, workspace) };
  }
  if (query === undefined || query.trim() === "") {
    throw new UsageError(
      "Give a Cypher query, or a file: kgrag cypher --file cypher/explore/top-entities-by-degree.cypher",
    );
  }
  const wantsWorkspace = usedParameters(query).includes("workspace") && given.workspace === undefined;
  return { text: query, params: wantsWorkspace ? { ...given, workspace } : given };
}

function bindFileParams(
  statement: CypherStatement,
  given: Record<string, unknown>,
  workspace: string,
): Record<string, unknown> {
  const declaresWorkspace = statement.params.some((p) => p.name === "workspace");
  try {
    return bindCypherParams(statement, declaresWorkspace ? { workspace, ...given } : given);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nPass them with --param name=value.`);
  }
}

/** A path as given, or relative to the kgrag package (cypher/explore/x.cypher, explore/x). */
export function findCypherFile(path: string): string {
  const withExtension = path.endsWith(".cypher") ? path : `${path}.cypher`;
  const candidates = [
    resolve(path),
    resolve(withExtension),
    join(cypherDir(), "..", withExtension),
    join(cypherDir(), withExtension),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found) return found;
  const explore = listCypherFiles().filter((name) => name.startsWith("explore/"));
  throw new UsageError(
    `No Cypher file ${path}. Shipped exploration queries:\n${explore.map((n) => `  cypher/${n}.cypher`).join("\n")}`,
  );
}

const MAX_CELL = 80;

export function formatCypherRows(result: CypherRows, maxRows: number): string {
  const cells = result.rows.map((row) => result.columns.map((column) => cellText(row[column] ?? null)));
  const table = result.columns.length > 0 ? formatTable(result.columns, cells) : "(no columns)";
  const count = `${result.rows.length} row${result.rows.length === 1 ? "" : "s"}`;
  const note = result.truncated ? `; stopped at --max-rows ${maxRows}` : "";
  return `${table}\n${count}${note}`;
}

function cellText(value: unknown): string | null {
  if (value === null) return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, " ");
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}
