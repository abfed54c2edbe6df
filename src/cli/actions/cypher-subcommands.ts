import { writeFile } from "node:fs/promises";
import { liveCypherOf, withoutKgragGraph } from "../../cypher/live-cypher.js";
import { type GraphSchema, loadSchema } from "../../cypher/schema.js";
import { introspectSchema } from "../../cypher/schema-introspect.js";
import { renderSchema } from "../../cypher/schema-render.js";
import { type CypherValidation, type ValidateOptions, validateCypher } from "../../cypher/validator.js";
import type { OpenForCypher } from "../commands/ask.js";
import type { ValidateCliOptions } from "../commands/cypher-subcommands.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";
import { storageFromEnv } from "./ask.js";
import { validateBatch } from "./cypher-validate-batch.js";

const SCHEMA_NEEDS_NEO4J = needsNeo4jMessage("cypher schema", "reads a live Neo4j database");

const NO_SCHEMA_WARNING =
  "No --schema given: labels, relationship types, properties and directions were not checked";

/** `kgrag cypher validate`: one query, or a --batch file of them, checked without a database. */
export async function validateAction(query: string | undefined, opts: ValidateCliOptions): Promise<void> {
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
}

/** `kgrag cypher schema`: reads the live database's schema, as text, JSON or a schema.json file. */
export async function schemaAction(
  open: OpenForCypher | undefined,
  opts: { json?: boolean; out?: string; workspace?: string; external?: boolean },
): Promise<void> {
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
