import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { SCHEMA_FORMAT } from "./schema-format.js";

export { SCHEMA_FORMAT };

const PropertyTypes = z.record(z.string(), z.string());

/** Keys that name labels: a schema with none of them would check nothing, so it is a wrong file. */
const LABEL_KEYS = ["labels", "nodeProperties", "patterns"] as const;

/**
 * The graph schema Text2Cypher and the validator work from: the schema.json format that
 * `kgrag cypher schema --json` writes and `kgrag cypher validate --schema` reads. Property types are
 * Neo4j's names (STRING, INTEGER, LIST<STRING>, ...). `sampleValues` holds the few values of
 * low-cardinality string properties, so the model writes `{status: "active"}` and not a guess.
 * Strict about its keys: a file of another shape must not pass as an empty schema that allows nothing.
 */
export const GraphSchemaSpec = z.strictObject({
  labels: z.array(z.string().min(1)).default([]),
  relationshipTypes: z.array(z.string().min(1)).default([]),
  nodeProperties: z.record(z.string(), PropertyTypes).default({}),
  relationshipProperties: z.record(z.string(), PropertyTypes).default({}),
  patterns: z.array(z.object({ start: z.string(), type: z.string(), end: z.string() })).default([]),
  sampleValues: z.record(z.string(), z.record(z.string(), z.array(z.string()))).optional(),
});

export type GraphSchema = z.infer<typeof GraphSchemaSpec>;
export type GraphSchemaInput = z.input<typeof GraphSchemaSpec>;
export type SchemaPattern = GraphSchema["patterns"][number];

/**
 * Parses and completes a schema: labels and types that only appear in properties or patterns are
 * added to the lists, so a hand-written schema.json can stay short.
 */
export function parseGraphSchema(input: unknown, source = "schema"): GraphSchema {
  const parsed = GraphSchemaSpec.safeParse(input);
  const problem = parsed.success ? missingLabelsKey(input) : z.prettifyError(parsed.error);
  if (problem || !parsed.success) {
    throw new Error(
      `${source} is not a kgrag graph schema:\n${problem}\n` +
        `Expected ${SCHEMA_FORMAT} (only "labels" is needed); ` +
        "`kgrag cypher schema --json` writes one from a live Neo4j database.",
    );
  }
  return completeSchema(parsed.data);
}

/** Checked on the input: the parsed schema has every key, filled with defaults. */
function missingLabelsKey(input: unknown): string | undefined {
  const keys = Object.keys(input as object);
  if (LABEL_KEYS.some((key) => keys.includes(key))) return undefined;
  return '✖ Missing "labels" (or "nodeProperties" / "patterns", from which the labels are taken)';
}

function completeSchema(schema: GraphSchema): GraphSchema {
  const labels = new Set(schema.labels);
  const types = new Set(schema.relationshipTypes);
  for (const label of Object.keys(schema.nodeProperties)) labels.add(label);
  for (const type of Object.keys(schema.relationshipProperties)) types.add(type);
  for (const pattern of schema.patterns) {
    labels.add(pattern.start);
    labels.add(pattern.end);
    types.add(pattern.type);
  }
  return { ...schema, labels: [...labels], relationshipTypes: [...types] };
}

export async function loadSchema(path: string): Promise<GraphSchema> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(`Cannot read the schema file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`The schema file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseGraphSchema(json, `The schema file ${path}`);
}

export async function saveSchema(path: string, schema: GraphSchema): Promise<void> {
  await writeFile(path, `${JSON.stringify(schema, null, 2)}\n`, "utf8");
}

/** Properties a node with any of `labels` may have (all node properties when `labels` is empty). */
export function nodePropertyNames(schema: GraphSchema, labels: Iterable<string>): Set<string> {
  return propertyNames(schema.nodeProperties, labels);
}

export function relationshipPropertyNames(schema: GraphSchema, types: Iterable<string>): Set<string> {
  return propertyNames(schema.relationshipProperties, types);
}

function propertyNames(table: Record<string, Record<string, string>>, keys: Iterable<string>): Set<string> {
  const wanted = [...keys];
  const owners = wanted.length ? wanted : Object.keys(table);
  const names = new Set<string>();
  for (const owner of owners) for (const name of Object.keys(table[owner] ?? {})) names.add(name);
  return names;
}
