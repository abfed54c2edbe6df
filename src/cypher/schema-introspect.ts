import neo4j, { type Driver } from "neo4j-driver";
import { bindCypherParams, loadCypher } from "./cypher-files.js";
import { type GraphSchema, parseGraphSchema } from "./schema.js";

/** Runs one read query and returns its rows as plain objects (driver values left as they come). */
export type SchemaReader = (
  cypher: string,
  params?: Record<string, unknown>,
) => Promise<Record<string, unknown>[]>;

export interface IntrospectOptions {
  /** Relationships sampled per type to find the label patterns (default 1000). */
  perTypeSample?: number;
  /** Nodes sampled per label to find low-cardinality string properties (default 1000). */
  valueSample?: number;
  /** A property with at most this many distinct values gets them listed (default 10). */
  maxValues?: number;
  /** Re-read the database even if a cached schema is fresh. */
  refresh?: boolean;
  /** How long a cached schema stays fresh (default 10 minutes). */
  cacheMs?: number;
  timeoutMs?: number;
}

const cache = new WeakMap<Driver, Map<string, { schema: GraphSchema; at: number }>>();

/**
 * Reads the schema of a live database with built-in procedures only (no APOC): labels, types,
 * property types, the label patterns present, and sample values. Cached per driver and database.
 */
export async function introspectSchema(
  driver: Driver,
  database?: string,
  options: IntrospectOptions = {},
): Promise<GraphSchema> {
  const perDriver = cache.get(driver) ?? new Map<string, { schema: GraphSchema; at: number }>();
  cache.set(driver, perDriver);
  const key = database ?? "";
  const hit = perDriver.get(key);
  if (hit && !options.refresh && Date.now() - hit.at < (options.cacheMs ?? 600_000)) return hit.schema;
  const schema = await introspectWith(driverReader(driver, database, options.timeoutMs ?? 30_000), options);
  perDriver.set(key, { schema, at: Date.now() });
  return schema;
}

function driverReader(driver: Driver, database: string | undefined, timeoutMs: number): SchemaReader {
  return async (cypher, params = {}) => {
    const result = await driver.executeQuery(cypher, params, {
      routing: neo4j.routing.READ,
      database,
      transactionConfig: { timeout: timeoutMs },
    });
    return result.records.map((record) => record.toObject());
  };
}

/** The introspection itself, over any reader (tests replay recorded rows). */
export async function introspectWith(
  read: SchemaReader,
  options: IntrospectOptions = {},
): Promise<GraphSchema> {
  const run = (name: string, params: Record<string, unknown> = {}) => {
    const statement = loadCypher(`introspect/${name}`);
    return read(statement.text, bindCypherParams(statement, params));
  };
  const labels = (await run("labels")).map((row) => String(row.label));
  const types = (await run("relationship-types")).map((row) => String(row.relationshipType));
  const nodeProperties = propertyTable(await run("node-properties"), (row) => stringList(row.nodeLabels));
  const relationshipProperties = propertyTable(await run("relationship-properties"), (row) => [
    relTypeName(String(row.relType)),
  ]);
  const patternRows = await run("patterns", { perType: neo4j.int(options.perTypeSample ?? 1000) });
  const patterns = patternRows.map((row) => ({
    start: String(row.start),
    type: String(row.type),
    end: String(row.end),
  }));
  const sampleValues = await lowCardinalityValues(run, nodeProperties, options);
  return parseGraphSchema({
    labels,
    relationshipTypes: types,
    nodeProperties,
    relationshipProperties,
    patterns,
    ...(Object.keys(sampleValues).length ? { sampleValues } : {}),
  });
}

type RunStatement = (name: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>[]>;

type PropertyTable = Record<string, Record<string, string>>;

function propertyTable(
  rows: Record<string, unknown>[],
  ownersOf: (row: Record<string, unknown>) => string[],
) {
  const table: PropertyTable = {};
  for (const row of rows) {
    for (const owner of ownersOf(row)) {
      table[owner] ??= {};
      if (typeof row.propertyName === "string")
        table[owner][row.propertyName] = cypherType(row.propertyTypes);
    }
  }
  return table;
}

/** db.schema.relTypeProperties names types as ":`ACTED_IN`". */
export function relTypeName(raw: string): string {
  const bare = raw.startsWith(":") ? raw.slice(1) : raw;
  return bare.startsWith("`") && bare.endsWith("`") ? bare.slice(1, -1).replaceAll("``", "`") : bare;
}

const TYPE_NAMES: Record<string, string> = {
  String: "STRING",
  Long: "INTEGER",
  Double: "FLOAT",
  Boolean: "BOOLEAN",
  Date: "DATE",
  DateTime: "ZONED DATETIME",
  LocalDateTime: "LOCAL DATETIME",
  Time: "ZONED TIME",
  LocalTime: "LOCAL TIME",
  Duration: "DURATION",
  Point: "POINT",
};

/** Procedure type names (String, LongArray) to Cypher type names (STRING, LIST<INTEGER>). */
export function cypherType(raw: unknown): string {
  const names = stringList(raw).map((name) => {
    const element = name.endsWith("Array") ? name.slice(0, -"Array".length) : undefined;
    if (element !== undefined) return `LIST<${TYPE_NAMES[element] ?? element.toUpperCase()}>`;
    return TYPE_NAMES[name] ?? name.toUpperCase();
  });
  return names.length ? [...new Set(names)].join(" | ") : "ANY";
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

async function lowCardinalityValues(
  run: RunStatement,
  nodeProperties: PropertyTable,
  options: IntrospectOptions,
) {
  const maxValues = options.maxValues ?? 10;
  const values: Record<string, Record<string, string[]>> = {};
  for (const [label, properties] of Object.entries(nodeProperties)) {
    const strings = Object.keys(properties).filter((name) => properties[name] === "STRING");
    if (strings.length === 0) continue;
    const rows = await run("sample-values", {
      label,
      properties: strings,
      sampleSize: neo4j.int(options.valueSample ?? 1000),
      maxValues: neo4j.int(maxValues + 1),
    });
    for (const row of rows) {
      const seen = toNumber(row.seen);
      const distinct = toNumber(row.distinctValues);
      const list = stringList(row.values);
      // Categorical: few values that repeat, each short enough to be a category and not prose.
      if (distinct > maxValues || distinct >= seen || list.some((v) => v.length > 40)) continue;
      values[label] ??= {};
      values[label][String(row.property)] = list;
    }
  }
  return values;
}

function toNumber(value: unknown): number {
  return neo4j.isInt(value) ? value.toNumber() : Number(value);
}
