import type { Command } from "commander";
import type { KgragServices } from "../../services.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { UsageError } from "../usage-error.js";

export type OpenServices = (opts: {
  workspace?: string;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

export interface CypherOptions {
  file?: string;
  param: string[];
  json?: boolean;
  workspace?: string;
  timeout: number;
  maxRows: number;
  allowProcedure: string[];
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
    .option(
      "--allow-procedure <name>",
      "also allow this procedure, which you vouch only reads (repeatable; EXPLAIN must still plan a read)",
      collect,
      [],
    )
    .enablePositionalOptions()
    .action(async (query: string | undefined, opts: CypherOptions) =>
      (await import("../actions/cypher.js")).cypherAction(open, query, opts),
    );
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
