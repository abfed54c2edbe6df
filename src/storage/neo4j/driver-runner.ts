import neo4j, { type Driver, Neo4jError } from "neo4j-driver";
import type { KgragConfig } from "../../config.js";
import { installBoltWriteBatching } from "./bolt-write-batching.js";
import { type PlainRecord, recordToPlain } from "./record-mapping.js";

/** What a connection needs (the rest of the neo4j config tunes the store). */
export type Neo4jSettings = Pick<
  NonNullable<KgragConfig["neo4j"]>,
  "uri" | "username" | "password" | "database"
> & { batchBoltWrites?: boolean };

/** The store's write sizes and in-memory search limits (config.ts documents them). */
export type Neo4jTuning = Pick<NonNullable<KgragConfig["neo4j"]>, (typeof TUNING_KEYS)[number]>;

/** The `neo4j` config keys the store itself reads (the rest tune the index steps). */
export const TUNING_KEYS = [
  "writeBatchRows",
  "changeSetBatch",
  "historyPageEntries",
  "inMemoryTextChunks",
  "inMemoryTextRelationships",
  "inMemoryVectorFloats",
  "hashingVectorsInMemory",
  "vectorIndexM",
  "vectorIndexEfConstruction",
] as const;

/** A statement ready to run: its name under cypher/ (for errors and tests), text and parameters. */
export interface BoundStatement {
  name: string;
  text: string;
  params: Record<string, unknown>;
}

/**
 * What the store needs from Neo4j: reads with READ routing, a managed write transaction, schema
 * commands on their own. The driver implements it below; unit tests script it.
 */
export interface StatementRunner {
  /** Names the database, e.g. for "schema already ensured" bookkeeping. */
  readonly target: string;
  read(statement: BoundStatement): Promise<PlainRecord[]>;
  /**
   * A read whose records are handed over one at a time as they arrive, so a large result is never
   * held whole (a namespace's vectors as lists of numbers). Runners without it read all at once.
   */
  readEach?(statement: BoundStatement, onRecord: (record: PlainRecord) => void): Promise<void>;
  write<T>(work: (run: (statement: BoundStatement) => Promise<PlainRecord[]>) => Promise<T>): Promise<T>;
  schema(statement: BoundStatement): Promise<PlainRecord[]>;
  close(): Promise<void>;
}

/**
 * Relationship vector indexes exist since 5.18, but kgrag's statements use the scoped subquery form
 * `CALL (x) { ... }`, which needs 5.23.
 */
export const MIN_VERSION: [number, number] = [5, 23];

/** Connects, checks the server version, and says how to start Neo4j when it cannot be reached. */
export async function openDriverRunner(settings: Neo4jSettings): Promise<DriverRunner> {
  // Process-wide (the driver's channel class is shared): once on, it stays on for later drivers.
  if (settings.batchBoltWrites !== false) installBoltWriteBatching();
  const driver = neo4j.driver(settings.uri, neo4j.auth.basic(settings.username, settings.password), {
    userAgent: "kgrag",
  });
  try {
    const info = await driver.getServerInfo({ database: settings.database });
    assertSupportedVersion(info.agent ?? "");
  } catch (error) {
    await driver.close();
    throw explainConnectionError(error, settings);
  }
  return new DriverRunner(driver, settings);
}

export class DriverRunner implements StatementRunner {
  readonly target: string;

  constructor(
    readonly driver: Driver,
    readonly settings: Neo4jSettings,
  ) {
    this.target = `${settings.uri}#${settings.database ?? ""}`;
  }

  get database(): string | undefined {
    return this.settings.database;
  }

  async read({ text, params }: BoundStatement): Promise<PlainRecord[]> {
    const result = await this.driver.executeQuery(text, params, {
      routing: neo4j.routing.READ,
      database: this.database,
    });
    return result.records.map(recordToPlain);
  }

  /** An auto-commit read: not retried, since records already handed over cannot be taken back. */
  async readEach({ text, params }: BoundStatement, onRecord: (record: PlainRecord) => void): Promise<void> {
    const session = this.driver.session({
      database: this.database,
      defaultAccessMode: neo4j.session.READ,
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let failed = false;
        session.run(text, params).subscribe({
          onNext: (record) => {
            if (failed) return;
            try {
              onRecord(recordToPlain(record));
            } catch (error) {
              failed = true;
              reject(error);
            }
          },
          onCompleted: () => resolve(),
          onError: reject,
        });
      });
    } finally {
      await session.close();
    }
  }

  async write<T>(
    work: (run: (statement: BoundStatement) => Promise<PlainRecord[]>) => Promise<T>,
  ): Promise<T> {
    // The bookmark manager executeQuery uses, so a read right after this write sees it (clusters).
    const session = this.driver.session({
      database: this.database,
      defaultAccessMode: neo4j.session.WRITE,
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
    try {
      return await session.executeWrite((tx) =>
        work(async ({ text, params }) => (await tx.run(text, params)).records.map(recordToPlain)),
      );
    } finally {
      await session.close();
    }
  }

  async schema({ text, params }: BoundStatement): Promise<PlainRecord[]> {
    try {
      const result = await this.driver.executeQuery(text, params, {
        routing: neo4j.routing.WRITE,
        database: this.database,
      });
      return result.records.map(recordToPlain);
    } catch (error) {
      if (lostCreateRace(error)) return [];
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}

/**
 * Schema statements are `CREATE ... IF NOT EXISTS`: when another process creates the same index or
 * constraint between this one's check and its commit, Neo4j refuses the second as equivalent to
 * the first. The rule then exists, as asked (two kgrag processes opening a fresh database at once).
 */
const EQUIVALENT_RULE = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists";

function lostCreateRace(error: unknown): boolean {
  return error instanceof Neo4jError && error.code === EQUIVALENT_RULE;
}

export function assertSupportedVersion(agent: string): void {
  const match = /Neo4j\/(\d+)\.(\d+)/.exec(agent);
  if (!match) return;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major < MIN_VERSION[0] || (major === MIN_VERSION[0] && minor < MIN_VERSION[1])) {
    throw new UnsupportedServerError(
      `kgrag needs Neo4j ${MIN_VERSION.join(".")} or later (scoped CALL subqueries); the server is ${agent}. ` +
        "Use neo4j:5.26 (see docker-compose.yml).",
    );
  }
}

export class UnsupportedServerError extends Error {}

function explainConnectionError(error: unknown, settings: Neo4jSettings): Error {
  if (error instanceof UnsupportedServerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new Error(
    `Cannot use Neo4j at ${settings.uri} as ${settings.username}: ${message}\n` +
      "Start one with `docker compose up -d` (docker-compose.yml in the kgrag folder), then set " +
      "NEO4J_URI (e.g. bolt://localhost:7687), NEO4J_USERNAME and NEO4J_PASSWORD (the compose file's password).",
  );
}
