/**
 * The Cypher validator against a live Neo4j on Neo4j's movies Text2Cypher dev set.
 *
 *   npx tsx bench/text2cypher-movies.ts [--data DIR]
 *
 * Starts the test Neo4j 5.26 (test/neo4j-server/), or uses NEO4J_URI / NEO4J_USERNAME /
 * NEO4J_PASSWORD / NEO4J_DATABASE when set; loads movies.cypher into an empty database; reads the
 * live schema the way `kgrag cypher schema --json --external` does and compares it with the set's
 * schema.json; then, for each gold query, validates it against the live schema (validateCypher) and
 * runs it read-only on the database (EXPLAIN check, READ transaction, 10 s timeout, 100 row cap).
 * A false positive is a query Neo4j runs that the validator rejects. Prints tables, then one JSON
 * object on the last line. DIR defaults to ../shared/datasets/neo4j-movies beside the repository.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import neo4j, { type Driver } from "neo4j-driver";
import { splitStatements } from "../src/cypher/cypher-files.js";
import { withoutKgragGraph } from "../src/cypher/live-cypher.js";
import { driverReadOnlySession, runReadOnlyCypher } from "../src/cypher/run-cypher.js";
import { type GraphSchema, loadSchema } from "../src/cypher/schema.js";
import { introspectSchema } from "../src/cypher/schema-introspect.js";
import { validateCypher } from "../src/cypher/validator.js";
import { missingTools, startTestNeo4j } from "../test/neo4j-server/test-neo4j.js";

const LIMITS = { timeoutMs: 10_000, maxRows: 100 };
/** In the demo database schema.json was read from, but not created by movies.cypher. */
const NOT_IN_LOAD_SCRIPT = new Set(["Movie.votes"]);

interface GoldQuery {
  id: string;
  question: string;
  cypher: string;
  returns_results: boolean;
}

/** Why Neo4j runs a query the validator rejects. */
type Disagreement = "property only in schema.json" | "property not on that element" | "validator";

interface Outcome {
  id: string;
  cypher: string;
  accepted: boolean;
  /** Accepted when validated against the set's schema.json instead of the live schema. */
  acceptedOnSchemaJson: boolean;
  validatorErrors: string[];
  executed: boolean;
  neo4jError?: string;
  rows: number;
  returnsResults: boolean;
}

interface Connection {
  driver: Driver;
  database: string | undefined;
  version: string;
  stop: () => Promise<void>;
}

async function main(): Promise<void> {
  const dataDir = datasetDir(process.argv.slice(2));
  const gold = readJsonl(join(dataDir, "text2cypher-dev.jsonl"));
  const reference = await loadSchema(join(dataDir, "schema.json"));
  const connection = await connect();
  try {
    const loaded = await loadMovies(connection, readFileSync(join(dataDir, "movies.cypher"), "utf8"));
    const schema = withoutKgragGraph(
      await introspectSchema(connection.driver, connection.database, { refresh: true }),
    );
    const differences = schemaDifferences(schema, reference);
    console.log(`Neo4j ${connection.version}; movies.cypher ${loaded}`);
    console.log("\nLive schema vs schema.json:");
    for (const line of differences.length ? differences : ["  no differences"]) console.log(line);
    const outcomes: Outcome[] = [];
    for (const query of gold) outcomes.push(await evaluate(query, schema, reference, connection));
    report(outcomes, differences, connection.version);
  } finally {
    await connection.driver.close();
    await connection.stop();
  }
}

function datasetDir(args: string[]): string {
  const at = args.indexOf("--data");
  if (at >= 0 && args[at + 1]) return resolve(args[at + 1] as string);
  const root = join(import.meta.dirname, "..");
  const candidates = ["../shared", "../../shared"].map((up) => join(root, up, "datasets/neo4j-movies"));
  const found = candidates.find((dir) => existsSync(join(dir, "text2cypher-dev.jsonl")));
  if (!found) throw new Error(`No movies dataset in ${candidates.join(" or ")}; give --data DIR`);
  return found;
}

function readJsonl(path: string): GoldQuery[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as GoldQuery);
}

/** NEO4J_URI when set, else the test Neo4j started (and stopped) by this script. */
async function connect(): Promise<Connection> {
  const uri = process.env.NEO4J_URI;
  if (uri) {
    const auth = neo4j.auth.basic(process.env.NEO4J_USERNAME ?? "neo4j", process.env.NEO4J_PASSWORD ?? "");
    const driver = neo4j.driver(uri, auth);
    const info = await driver.getServerInfo();
    const database = process.env.NEO4J_DATABASE || undefined;
    return { driver, database, version: `${info.agent ?? "?"} at ${uri}`, stop: async () => {} };
  }
  const missing = await missingTools();
  if (missing) throw new Error(`Cannot start the test Neo4j: ${missing}. Set NEO4J_URI instead.`);
  const server = await startTestNeo4j((line) => console.error(line));
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
  return { driver, database: undefined, version: server.version, stop: server.stop };
}

/** Runs the load script into an empty graph; a database that already has movies is left as it is. */
async function loadMovies({ driver, database }: Connection, script: string): Promise<string> {
  const existing = await driver.executeQuery("MATCH (m:Movie) RETURN count(m) AS n", {}, { database });
  const movies = Number(existing.records[0]?.get("n") ?? 0);
  if (movies > 0) return `not loaded: the database already has ${movies} :Movie nodes`;
  const statements = splitStatements(script);
  for (const statement of statements) await driver.executeQuery(statement, {}, { database });
  return `loaded (${statements.length} statements)`;
}

async function evaluate(
  query: GoldQuery,
  schema: GraphSchema,
  reference: GraphSchema,
  { driver, database }: Connection,
): Promise<Outcome> {
  const validation = validateCypher(query.cypher, schema);
  const outcome: Outcome = {
    id: query.id,
    cypher: query.cypher,
    accepted: validation.valid,
    acceptedOnSchemaJson: validateCypher(query.cypher, reference).valid,
    validatorErrors: validation.errors,
    executed: false,
    rows: 0,
    returnsResults: query.returns_results,
  };
  try {
    const result = await runReadOnlyCypher(driverReadOnlySession(driver, database), query.cypher, {}, LIMITS);
    outcome.executed = true;
    outcome.rows = result.rows.length;
  } catch (error) {
    outcome.neo4jError = neo4jError(error);
  }
  return outcome;
}

function neo4jError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const firstLine = String((error as Error).message ?? error).split("\n")[0] ?? "";
  return typeof code === "string" ? `${code}: ${firstLine}` : firstLine;
}

/** Labels, relationship types, property types and patterns that differ, one line each. */
function schemaDifferences(live: GraphSchema, reference: GraphSchema): string[] {
  const lines: string[] = [];
  const compare = (what: string, liveNames: string[], referenceNames: string[]) => {
    const inLive = new Set(liveNames);
    const inReference = new Set(referenceNames);
    for (const name of referenceNames.filter((n) => !inLive.has(n))) {
      const note = NOT_IN_LOAD_SCRIPT.has(name) ? " (expected: movies.cypher does not create it)" : "";
      lines.push(`  ${what} ${name}: only in schema.json${note}`);
    }
    for (const name of liveNames.filter((n) => !inReference.has(n)))
      lines.push(`  ${what} ${name}: only in the live database`);
  };
  compare("label", live.labels, reference.labels);
  compare("relationship type", live.relationshipTypes, reference.relationshipTypes);
  const pattern = (p: GraphSchema["patterns"][number]) => `(:${p.start})-[:${p.type}]->(:${p.end})`;
  compare("pattern", live.patterns.map(pattern), reference.patterns.map(pattern));
  for (const kind of ["nodeProperties", "relationshipProperties"] as const) {
    const liveTypes = propertyTypes(live[kind]);
    const referenceTypes = propertyTypes(reference[kind]);
    compare("property", [...liveTypes.keys()], [...referenceTypes.keys()]);
    for (const [name, type] of referenceTypes) {
      const liveType = liveTypes.get(name);
      if (liveType !== undefined && liveType !== type)
        lines.push(`  property ${name}: ${liveType} live, ${type} in schema.json`);
    }
  }
  return lines;
}

function propertyTypes(table: Record<string, Record<string, string>>): Map<string, string> {
  const types = new Map<string, string>();
  for (const [owner, properties] of Object.entries(table))
    for (const [name, type] of Object.entries(properties)) types.set(`${owner}.${name}`, type);
  return types;
}

/**
 * A rejected query that runs: the live graph lacks a property schema.json has (Movie.votes), the
 * query reads a property its label or type does not have in either schema (Neo4j returns null: a
 * wrong answer, caught on purpose), or a false positive of the validator itself.
 */
function disagreement(outcome: Outcome): Disagreement {
  if (outcome.acceptedOnSchemaJson) return "property only in schema.json";
  const unknownProperties = outcome.validatorErrors.every((error) => error.startsWith("Unknown property"));
  return unknownProperties ? "property not on that element" : "validator";
}

function report(outcomes: Outcome[], differences: string[], version: string): void {
  const count = (test: (o: Outcome) => boolean) => outcomes.filter(test).length;
  const falsePositives = outcomes.filter((o) => o.executed && !o.accepted);
  const byKind = (kind: Disagreement) => falsePositives.filter((o) => disagreement(o) === kind).length;
  const missed = outcomes.filter((o) => !o.executed && o.accepted);
  const bothFail = outcomes.filter((o) => !o.executed && !o.accepted);
  const hasRows = (o: Outcome) => o.executed && o.rows > 0;
  console.log("\n                      executed on Neo4j   failed on Neo4j   total");
  for (const [name, accepted] of [
    ["validator accepts", true],
    ["validator rejects", false],
  ] as const) {
    const row = (executed: boolean) => count((o) => o.accepted === accepted && o.executed === executed);
    console.log(
      `${name.padEnd(22)}${String(row(true)).padStart(17)}${String(row(false)).padStart(18)}` +
        `${String(count((o) => o.accepted === accepted)).padStart(8)}`,
    );
  }
  const rowsAgree = count((o) => hasRows(o) === o.returnsResults);
  console.log(`\nrows returned vs returns_results: ${rowsAgree}/${outcomes.length} agree`);
  console.log(
    `  returned rows: ${count(hasRows)} (set says ${count((o) => o.returnsResults)}); ` +
      `rows where the set says none: ${count((o) => hasRows(o) && !o.returnsResults)}; ` +
      `no rows where the set expects some: ${count((o) => !hasRows(o) && o.returnsResults)}`,
  );
  printList("FALSE POSITIVES (Neo4j runs it, the validator rejects it)", falsePositives, (o) => [
    `validator: ${o.validatorErrors.join(" | ")}`,
    `why: ${disagreement(o)}; rows: ${o.rows}; accepted against schema.json: ${o.acceptedOnSchemaJson ? "yes" : "no"}`,
  ]);
  console.log(
    `  by cause: ${byKind("property only in schema.json")} property only in schema.json, ` +
      `${byKind("property not on that element")} property not on that element (Neo4j returns null), ` +
      `${byKind("validator")} validator`,
  );
  printList("Accepted by the validator but failing on Neo4j", missed, (o) => [`neo4j: ${o.neo4jError}`]);
  printList("Rejected by both", bothFail, (o) => [
    `validator: ${o.validatorErrors.join(" | ")}`,
    `neo4j: ${o.neo4jError}`,
  ]);
  const summary = {
    bench: "text2cypher-movies",
    neo4j: version,
    queries: outcomes.length,
    accepted: count((o) => o.accepted),
    rejected: count((o) => !o.accepted),
    executed: count((o) => o.executed),
    failed: count((o) => !o.executed),
    acceptedAndExecuted: count((o) => o.accepted && o.executed),
    falsePositives: falsePositives.map((o) => ({
      id: o.id,
      why: disagreement(o),
      errors: o.validatorErrors,
    })),
    validatorFalsePositives: byKind("validator"),
    acceptedButFailed: missed.map((o) => ({ id: o.id, error: o.neo4jError })),
    rejectedAndFailed: bothFail.map((o) => o.id),
    returnedRows: count(hasRows),
    expectedRows: count((o) => o.returnsResults),
    rowsAgreeWithReturnsResults: rowsAgree,
    rowsDisagree: outcomes.filter((o) => hasRows(o) !== o.returnsResults).map((o) => o.id),
    schemaDifferences: differences.map((line) => line.trim()),
  };
  console.log(JSON.stringify(summary));
}

function printList(title: string, outcomes: Outcome[], details: (o: Outcome) => string[]): void {
  console.log(`\n${title}: ${outcomes.length}`);
  for (const outcome of outcomes) {
    console.log(`  ${outcome.id}: ${outcome.cypher.replaceAll(/\s*\n\s*/g, " ")}`);
    for (const line of details(outcome)) console.log(`      ${line}`);
  }
}

await main();
