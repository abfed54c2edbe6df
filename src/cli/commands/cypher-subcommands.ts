import type { Command } from "commander";
import { SCHEMA_FORMAT } from "../../cypher/schema-format.js";
import type { OpenForCypher } from "./ask.js";

export interface ValidateCliOptions {
  schema?: string;
  batch?: string;
  json?: boolean;
  jsonl?: boolean;
  allowParams?: boolean;
  allowProcedure: string[];
}

/**
 * `kgrag cypher validate` (no database needed) and `kgrag cypher schema` (reads a live one).
 * `open` defaults to the CLI's workspace opener, loaded only when `schema` runs.
 */
export function addCypherSubcommands(cypher: Command, open?: OpenForCypher): Command {
  cypher
    .command("validate")
    .description(
      "Check Cypher against a schema file: syntax, labels, types, properties, directions, read-only",
    )
    .argument("[query]", "the Cypher query (or use --batch)")
    .option("--schema <file>", "schema.json, as `kgrag cypher schema --json` writes it")
    .option("--batch <file>", 'JSONL file of {"id","cypher"} lines ("-" for stdin)')
    .option("--jsonl", "one JSON result per line (the default for --batch)")
    .option("--json", "print JSON")
    .option("--allow-params", "accept $parameters (supplied at run time) with a warning")
    .option("--allow-procedure <name>", "also allow this procedure (repeatable)", collect, [])
    .addHelpText("after", `\nschema.json (only "labels" is required): ${SCHEMA_FORMAT}`)
    .action(async (query: string | undefined, opts: ValidateCliOptions) =>
      (await import("../actions/cypher-subcommands.js")).validateAction(query, opts),
    );

  cypher
    .command("schema")
    .description("Read the schema of the live Neo4j database (built-in procedures only, no APOC)")
    .option("--json", "print schema.json, the format `kgrag cypher validate --schema` reads")
    .option("--out <file>", "write schema.json to this file")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--external", "only the database's own graph: kgrag's labels and types left out")
    .action(async (opts: { json?: boolean; out?: string; workspace?: string; external?: boolean }) =>
      (await import("../actions/cypher-subcommands.js")).schemaAction(open, opts),
    );
  return cypher;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
