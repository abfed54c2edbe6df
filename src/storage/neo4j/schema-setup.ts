import { bindCypherParams, loadCypher, splitStatements } from "../../cypher/cypher-files.js";
import type { VectorNamespace } from "../../types.js";
import type { Neo4jVectorIndexState } from "../graph-store.js";
import { int, type Neo4jConnection } from "./connection.js";
import { asNumber } from "./read-rows.js";

const SCHEMA_SCRIPTS = [
  "schema/retired-indexes",
  "schema/constraints",
  "schema/range-indexes",
  "schema/fulltext-indexes",
];
const FULLTEXT_INDEXES = ["kgrag_chunk_text", "kgrag_entity_names", "kgrag_relationship_terms"];
const INDEX_WAIT_SECONDS = 300;

/** Index names, as spelled in cypher/schema/vector-index-<ns>.cypher and the ann.cypher files. */
export const VECTOR_INDEX_NAMES: Record<VectorNamespace, string> = {
  chunks: "kgrag_chunk_embedding",
  entities: "kgrag_entity_embedding",
  relationships: "kgrag_related_embedding",
  communities: "kgrag_community_embedding",
};

/** Databases (uri + name) whose schema this process already ensured. */
const ensured = new Set<string>();

/** Constraints, range and full-text indexes; all IF NOT EXISTS, so every process may run them. */
export async function ensureSchema(connection: Neo4jConnection): Promise<void> {
  const target = connection.runner.target;
  if (ensured.has(target)) return;
  for (const script of SCHEMA_SCRIPTS) {
    const statements = splitStatements(loadCypher(script).text);
    for (const [i, text] of statements.entries()) await connection.schema(`${script}#${i + 1}`, text);
  }
  for (const name of FULLTEXT_INDEXES) await awaitIndex(connection, name);
  ensured.add(target);
}

async function awaitIndex(connection: Neo4jConnection, name: string): Promise<void> {
  await runSchemaStatement(connection, "schema/await-index", {
    name,
    timeoutSeconds: int(INDEX_WAIT_SECONDS),
  });
}

interface IndexState {
  state: string;
  dimension: number | null;
}

/**
 * Vector indexes are created lazily: the dimension is only known once the first vectors arrive,
 * and a namespace small enough to be ranked in memory gets none (vector-index-need.ts).
 * The index itself records the dimension (SHOW VECTOR INDEXES); vectors of another dimension are
 * stored but not indexed, and searches over them fall back to exact cosine.
 */
export class VectorIndexes {
  private readonly online = new Map<VectorNamespace, number | null>();

  constructor(private readonly connection: Neo4jConnection) {}

  /** True once this process saw the namespace's index online (ensure() has nothing left to do). */
  known(ns: VectorNamespace): boolean {
    return this.online.has(ns);
  }

  async ensure(ns: VectorNamespace, dimension: number): Promise<void> {
    if (this.online.has(ns)) return;
    const existing = await this.state(ns);
    if (!existing) {
      const { vectorIndexM, vectorIndexEfConstruction } = this.connection.tuning;
      await runSchemaStatement(this.connection, `schema/vector-index-${ns}`, {
        dimension: int(dimension),
        m: int(vectorIndexM),
        efConstruction: int(vectorIndexEfConstruction),
      });
    }
    await awaitIndex(this.connection, VECTOR_INDEX_NAMES[ns]);
    this.online.set(ns, (await this.state(ns))?.dimension ?? null);
  }

  /** True when the index exists, is online and holds vectors of this dimension. */
  async serves(ns: VectorNamespace, dimension: number): Promise<boolean> {
    if (!this.online.has(ns)) {
      const current = await this.state(ns);
      if (current?.state !== "ONLINE") return false;
      this.online.set(ns, current.dimension);
    }
    return this.online.get(ns) === dimension;
  }

  private async state(ns: VectorNamespace): Promise<IndexState | undefined> {
    const [row] = await runSchemaStatement(this.connection, "schema/show-vector-index", {
      name: VECTOR_INDEX_NAMES[ns],
    });
    if (!row) return undefined;
    const dimension =
      row.dimension === null || row.dimension === undefined
        ? null
        : asNumber(row.dimension, "index dimension");
    return { state: String(row.state), dimension };
  }
}

function runSchemaStatement(connection: Neo4jConnection, name: string, params: Record<string, unknown>) {
  const statement = loadCypher(name);
  return connection.schema(name, statement.text, bindCypherParams(statement, params));
}

/** kgrag's vector indexes that exist, by namespace, as SHOW VECTOR INDEXES reports them. */
export async function vectorIndexStates(
  connection: Neo4jConnection,
): Promise<Map<VectorNamespace, Neo4jVectorIndexState>> {
  const namespaces = Object.entries(VECTOR_INDEX_NAMES) as [VectorNamespace, string][];
  const rows = await connection.read("schema/show-vector-indexes", {
    names: namespaces.map(([, name]) => name),
  });
  const states = new Map<VectorNamespace, Neo4jVectorIndexState>();
  for (const [ns, name] of namespaces) {
    const row = rows.find((r) => r.name === name);
    if (!row) continue;
    states.set(ns, {
      name,
      state: String(row.state),
      populationPercent: asNumber(row.populationPercent ?? 0, "index population"),
      dimension:
        row.dimension === null || row.dimension === undefined
          ? null
          : asNumber(row.dimension, "index dimension"),
    });
  }
  return states;
}
