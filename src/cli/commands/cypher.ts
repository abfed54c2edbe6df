import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { configFromEnv } from "../../config.js";
import {
  bindCypherParams,
  type CypherStatement,
  cypherDir,
  listCypherFiles,
  readCypherFile,
  usedParameters,
} from "../../cypher/cypher-files.js";
import {
  type CypherRows,
  driverReadOnlySession,
  parseCypherParams,
  ReadOnlyRefusal,
  type ReadOnlySession,
  runReadOnlyCypher,
} from "../../cypher/run-cypher.js";
import type { KgragServices } from "../../services.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { DriverRunner } from "../../storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../../storage/neo4j/neo4j-store.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { formatTable, printJson, UsageError } from "../output.js";

type OpenServices = (opts: {
  workspace?: string;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

interface CypherOptions {
  file?: string;
  param: string[];
  json?: boolean;
  workspace?: string;
  timeout: number;
  maxRows: number;
}

export const NEEDS_NEO4J = needsNeo4jMessage("cypher", "runs Cypher on the graph database");

/**
 * `kgrag cypher "<query>"` and `kgrag cypher --file <file>`: read-only Cypher over the Neo4j
 * backend. Returns the command so that subcommands (`validate`, `schema`) can be added to it; its
 * options stop at a subcommand's name, so `kgrag cypher validate ... --json` reaches the subcommand.
 */
export function registerCypherCommand(program: Command, open: OpenServices): Command {
  // Without this the program hands `--json` of `kgrag cypher validate q --json` to `cypher` itself.
  program.enablePositionalOptions();
  return program
    .command("cypher")
    .description("Run a read-only Cypher query (or a cypher/explore/*.cypher file) against the Neo4j backend")
    .argument("[query]", "Cypher query; $workspace is filled in")
    .option("-f, --file <path>", "run a .cypher file, e.g. cypher/explore/top-entities-by-degree.cypher")
    .option("-p, --param <key=value>", "query parameter (repeatable; JSON values allowed)", collect, [])
    .option("--json", "print JSON instead of a table")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--timeout <ms>", "transaction timeout in milliseconds", positiveInteger, 30_000)
    .option("--max-rows <n>", "stop after this many rows", positiveInteger, 1000)
    .enablePositionalOptions()
    .action(async (query: string | undefined, opts: CypherOptions) => {
      assertNeo4jConfigured();
      const { services, close } = await open(opts);
      try {
        const session = readOnlySessionOf(services.store);
        if (!session) throw new UsageError(NEEDS_NEO4J);
        const rows = await asUsageError(() => {
          const { text, params } = resolveQuery(query, opts, workspaceOf(services.store));
          return runReadOnlyCypher(session, text, params, { timeoutMs: opts.timeout, maxRows: opts.maxRows });
        });
        if (opts.json) printJson(rows);
        else process.stdout.write(`${formatCypherRows(rows, opts.maxRows)}\n`);
      } finally {
        await close();
      }
    });
}

/** A refused query is a usage error (exit code 2), like a wrong invocation. */
async function asUsageError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReadOnlyRefusal) throw new UsageError(error.message);
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

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new UsageError(`Expected a positive whole number, got ${value}`);
  return parsed;
}
