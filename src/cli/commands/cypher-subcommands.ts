import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { liveCypherOf, withoutKgragGraph } from "../../cypher/live-cypher.js";
import { type GraphSchema, loadSchema, SCHEMA_FORMAT } from "../../cypher/schema.js";
import { introspectSchema } from "../../cypher/schema-introspect.js";
import { renderSchema } from "../../cypher/schema-render.js";
import { type CypherValidation, type ValidateOptions, validateCypher } from "../../cypher/validator.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { printJson, UsageError } from "../output.js";
import { type OpenForCypher, storageFromEnv } from "./ask.js";
import { validateBatch } from "./cypher-validate-batch.js";

interface ValidateCliOptions {
  schema?: string;
  batch?: string;
  json?: boolean;
  jsonl?: boolean;
  allowParams?: boolean;
  allowProcedure: string[];
}

const SCHEMA_NEEDS_NEO4J = needsNeo4jMessage("cypher schema", "reads a live Neo4j database");

const NO_SCHEMA_WARNING =
  "No --schema given: labels, relationship types, properties and directions were not checked";

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
    .action(async (query: string | undefined, opts: ValidateCliOptions) => {
      const schema = opts.schema ? await asUsageError(() => loadSchema(opts.schema as string)) : null;
      const validate = (text: string) =>
        withSchemaNote(validateCypher(text, schema, validateOptions(opts)), schema);
      if (opts.batch !== undefined) {
        if (query !== undefined) throw new UsageError("Give either a query or --batch, not both.");
        await validateBatch(opts.batch, validate, Boolean(opts.json && !opts.jsonl));
        return;
      }
      if (query === undefined)
        throw new UsageError('Give a query (kgrag cypher validate "MATCH ...") or --batch FILE.');
      if (opts.jsonl) throw new UsageError("--jsonl is for --batch; use --json for one query.");
      const result = validate(query);
      if (opts.json) printJson(result);
      else process.stdout.write(`${describeValidation(result)}\n`);
      if (!result.valid) process.exitCode = 1;
    });

  cypher
    .command("schema")
    .description("Read the schema of the live Neo4j database (built-in procedures only, no APOC)")
    .option("--json", "print schema.json, the format `kgrag cypher validate --schema` reads")
    .option("--out <file>", "write schema.json to this file")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--external", "only the database's own graph: kgrag's labels and types left out")
    .action(async (opts: { json?: boolean; out?: string; workspace?: string; external?: boolean }) => {
      if (storageFromEnv() === "sqlite") throw new UsageError(SCHEMA_NEEDS_NEO4J);
      const opener = open ?? (await import("../open.js")).cliOpener();
      const opened = await opener(opts);
      try {
        const live = liveCypherOf(opened.services.store);
        if (!live) throw new UsageError(SCHEMA_NEEDS_NEO4J);
        const schema = await introspectSchema(live.driver, live.database, { refresh: true });
        await writeSchema(opts.external ? withoutKgragGraph(schema) : schema, opts);
      } finally {
        await opened.close();
      }
    });
  return cypher;
}

async function writeSchema(schema: GraphSchema, opts: { json?: boolean; out?: string }): Promise<void> {
  if (opts.out) {
    await writeFile(opts.out, `${JSON.stringify(schema, null, 2)}\n`, "utf8");
    process.stderr.write(`kgrag: wrote ${opts.out}\n`);
  } else if (opts.json) printJson(schema);
  else process.stdout.write(`${renderSchema(schema)}\n`);
}

function validateOptions(opts: ValidateCliOptions): ValidateOptions {
  return { parameters: opts.allowParams ? "any" : [], allowProcedures: opts.allowProcedure };
}

function withSchemaNote(result: CypherValidation, schema: GraphSchema | null): CypherValidation {
  return schema ? result : { ...result, warnings: [...result.warnings, NO_SCHEMA_WARNING] };
}

function describeValidation(result: CypherValidation): string {
  const head = result.valid ? "valid, read-only" : result.readOnly ? "invalid" : "invalid, not read-only";
  const lines = [
    head,
    ...result.errors.map((e) => `  error: ${e}`),
    ...result.warnings.map((w) => `  warning: ${w}`),
  ];
  return lines.join("\n");
}

async function asUsageError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
