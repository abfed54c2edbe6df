import type { Driver } from "neo4j-driver";
import type { KgragConfig } from "../config.js";
import { loadPrompt } from "../llm/prompts.js";
import type { GraphStore } from "../storage/graph-store.js";
import { DriverRunner } from "../storage/neo4j/driver-runner.js";
import { GRAPH_MODEL } from "../storage/neo4j/graph-model.js";
import { Neo4jGraphStore } from "../storage/neo4j/neo4j-store.js";
import { driverReadOnlySession, runReadOnlyCypher } from "./run-cypher.js";
import { type GraphSchema, loadSchema } from "./schema.js";
import { introspectSchema } from "./schema-introspect.js";
import type { CypherExecutor, TextToCypherOptions } from "./text2cypher.js";

/** The Neo4j database behind a workspace, as Text2Cypher needs it. */
export interface LiveCypher {
  driver: Driver;
  database: string | undefined;
  workspace: string;
  /** Procedures the user vouches only read (`neo4j.readOnlyProcedures`), see ReadOnlyLimits. */
  allowProcedures?: readonly string[];
}

/**
 * Undefined when the workspace uses the embedded store (Cypher needs the Neo4j backend).
 * `allowProcedures`: the config's `neo4j.readOnlyProcedures`.
 */
export function liveCypherOf(
  store: Pick<GraphStore, "kind">,
  allowProcedures: readonly string[] = [],
): LiveCypher | undefined {
  if (!(store instanceof Neo4jGraphStore) || !(store.connection.runner instanceof DriverRunner))
    return undefined;
  const runner = store.connection.runner;
  return { driver: runner.driver, database: runner.database, workspace: store.workspace, allowProcedures };
}

/** The config's `neo4j.readOnlyProcedures` (none without a config or a neo4j section). */
export function readOnlyProceduresOf(config: Pick<KgragConfig, "neo4j"> | undefined): readonly string[] {
  return config?.neo4j?.readOnlyProcedures ?? [];
}

/**
 * Runs validated queries the read-only way `kgrag cypher` does: EXPLAIN must report a read-only
 * plan ("r"), then a READ transaction with READ routing, the timeout and the row cap.
 * `raiseTimeout` says how the caller's surface allows more time (see ReadOnlyLimits).
 */
export function liveExecutor(live: LiveCypher, raiseTimeout?: string): CypherExecutor {
  const session = driverReadOnlySession(live.driver, live.database);
  return async (cypher, limits, params) => {
    const result = await runReadOnlyCypher(session, cypher, params, {
      ...limits,
      raiseTimeout,
      allowProcedures: live.allowProcedures,
    });
    return { rows: result.rows, truncated: result.truncated };
  };
}

/** The schema from a file when given, else introspected from the database (cached per driver). */
export async function resolveSchema(
  live: LiveCypher | undefined,
  schemaFile: string | undefined,
): Promise<GraphSchema> {
  if (schemaFile) return loadSchema(schemaFile);
  if (!live) throw new Error("No schema: give --schema FILE or use the Neo4j backend");
  return introspectSchema(live.driver, live.database);
}

/** kgrag's own graph (Document/Chunk/Entity) is shared by workspaces and filtered by $workspace. */
export function isKgragGraph(schema: GraphSchema): boolean {
  return ["Document", "Chunk", "Entity"].every((label) => schema.labels.includes(label));
}

/** Without the filter a query on kgrag's graph reads every workspace that shares the database. */
const WORKSPACE_FILTER_MISSING =
  "No workspace filter: give the nodes you match {workspace: $workspace}, " +
  "or the query reads every workspace in the database";

/** Bookkeeping labels of kgrag's graph that no question is about. */
const KGRAG_INTERNAL_LABELS = new Set([
  "Meta",
  "LlmCache",
  "History",
  "Counter",
  "RelationMention",
  "WriterLease",
]);

/** Where Text2Cypher asks: the workspace, and the procedures the user vouches only read. */
export type Text2CypherScope = Partial<Pick<LiveCypher, "workspace" | "allowProcedures">>;

/**
 * What Text2Cypher gets on the live database: the allowed procedures for the validator of the
 * model's queries (the executor's own list, so a query `kgrag cypher` runs is not refused when a
 * model writes it), and on kgrag's own graph the workspace note and parameter, and a schema
 * without bookkeeping labels and embedding vectors (they only cost prompt tokens; the validator
 * still accepts them).
 */
export function text2CypherSetup(
  schema: GraphSchema,
  scope: Text2CypherScope,
  target: CypherTarget = "workspace",
): {
  schema: GraphSchema;
  options: Pick<TextToCypherOptions, "instructions" | "parameters" | "requiredParameters" | "validation">;
} {
  const validation = { allowProcedures: scope.allowProcedures ?? [] };
  if (target === "external") return { schema: withoutKgragGraph(schema), options: { validation } };
  const workspace = scope.workspace;
  if (workspace === undefined || !isKgragGraph(schema)) return { schema, options: { validation } };
  return {
    schema: withoutInternals(schema),
    options: {
      validation,
      instructions: loadPrompt("text2cypher-workspace").trim(),
      parameters: { workspace },
      requiredParameters: { workspace: WORKSPACE_FILTER_MISSING },
    },
  };
}

/**
 * What questions are asked of: the workspace's graph that kgrag built (filtered by $workspace), or
 * the database's own graph that kgrag did not build (`--external`: the whole database, no filter).
 */
export type CypherTarget = "workspace" | "external";

/** A user's own graph sharing the database with kgrag workspaces: kgrag's labels and types left out. */
export function withoutKgragGraph(schema: GraphSchema): GraphSchema {
  const labels = new Set<string>(GRAPH_MODEL.labels);
  const types = new Set<string>(GRAPH_MODEL.relationshipTypes);
  return filterSchema(
    schema,
    (label) => !labels.has(label),
    (type) => !types.has(type),
    (properties) => properties,
  );
}

/**
 * kgrag's graph as a workspace's questions see it: without bookkeeping labels and vectors, and
 * without a graph of the user's own in the same database (asked with `--external`; its nodes
 * carry no workspace, so a workspace-filtered query on them would find nothing).
 */
function withoutInternals(schema: GraphSchema): GraphSchema {
  const labels = new Set<string>(GRAPH_MODEL.labels);
  const types = new Set<string>(GRAPH_MODEL.relationshipTypes);
  const dropVectors = (properties: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(properties).filter(([name]) => !/^embedding/.test(name) && name !== "anchor"),
    );
  return filterSchema(
    schema,
    (label) => labels.has(label) && !KGRAG_INTERNAL_LABELS.has(label),
    (type) => types.has(type),
    dropVectors,
  );
}

/**
 * The schema restricted to the labels and relationship types kept. A type stays when a kept
 * pattern uses it, or when it has no pattern at all (no data sampled yet).
 */
function filterSchema(
  schema: GraphSchema,
  keepLabel: (label: string) => boolean,
  keepType: (type: string) => boolean,
  cleanProperties: (properties: Record<string, string>) => Record<string, string>,
): GraphSchema {
  const table = (entries: Record<string, Record<string, string>>, owners: (name: string) => boolean) =>
    Object.fromEntries(
      Object.entries(entries)
        .filter(([owner]) => owners(owner))
        .map(([owner, properties]) => [owner, cleanProperties(properties)]),
    );
  const patterns = schema.patterns.filter((p) => keepLabel(p.start) && keepLabel(p.end) && keepType(p.type));
  const types = new Set(
    schema.relationshipTypes.filter(
      (type) =>
        keepType(type) &&
        (patterns.some((p) => p.type === type) || !schema.patterns.some((p) => p.type === type)),
    ),
  );
  const sampleValues =
    schema.sampleValues &&
    Object.fromEntries(Object.entries(schema.sampleValues).filter(([label]) => keepLabel(label)));
  return {
    ...schema,
    ...(sampleValues ? { sampleValues } : {}),
    labels: schema.labels.filter(keepLabel),
    relationshipTypes: schema.relationshipTypes.filter((type) => types.has(type)),
    nodeProperties: table(schema.nodeProperties, keepLabel),
    relationshipProperties: table(schema.relationshipProperties, (type) => types.has(type)),
    patterns,
  };
}
