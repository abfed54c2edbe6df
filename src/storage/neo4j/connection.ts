import neo4j, { type Integer } from "neo4j-driver";
import { Neo4jSchema } from "../../config.js";
import { bindCypherParams, loadCypher } from "../../cypher/cypher-files.js";
import type { BoundStatement, Neo4jTuning, StatementRunner } from "./driver-runner.js";
import type { PlainRecord } from "./record-mapping.js";

/** The tuning of a connection given no `neo4j` config: the config's defaults. */
export const DEFAULT_TUNING: Neo4jTuning = Neo4jSchema.pick({
  writeBatchRows: true,
  changeSetBatch: true,
  historyPageEntries: true,
  inMemoryTextChunks: true,
  inMemoryTextRelationships: true,
  inMemoryVectorFloats: true,
  hashingVectorsInMemory: true,
  vectorIndexM: true,
  vectorIndexEfConstruction: true,
}).parse({});

/** Rows per UNWIND statement by default (`neo4j.writeBatchRows`). */
export const WRITE_BATCH_ROWS = DEFAULT_TUNING.writeBatchRows;

/** JavaScript numbers travel as Cypher FLOAT; counts, positions and LIMITs must be INTEGER. */
export function int(value: number): Integer {
  return neo4j.int(value);
}

/**
 * The store's view of Neo4j, scoped to one workspace. Statements are named by their file under
 * cypher/; parameters are checked against the file's header, and `$workspace` is filled in for
 * every statement that declares it. Reads use READ routing; writes run in one managed write
 * transaction per call, which the driver retries on transient errors.
 */
export class Neo4jConnection {
  private readonly commitListeners: (() => void)[] = [];

  constructor(
    readonly runner: StatementRunner,
    readonly workspace: string,
    /** Statement and transaction sizes of this connection's writes, and the in-memory search limits. */
    readonly tuning: Neo4jTuning = DEFAULT_TUNING,
  ) {}

  /** Called after each write transaction of this connection ends. */
  afterCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  read(name: string, params: Record<string, unknown> = {}): Promise<PlainRecord[]> {
    return this.runner.read(this.bind(name, params));
  }

  /** A read whose records are handed to `onRecord` as they arrive (see StatementRunner.readEach). */
  async readEach(
    name: string,
    params: Record<string, unknown>,
    onRecord: (record: PlainRecord) => void,
  ): Promise<void> {
    const statement = this.bind(name, params);
    if (this.runner.readEach) return this.runner.readEach(statement, onRecord);
    for (const record of await this.runner.read(statement)) onRecord(record);
  }

  /**
   * Runs `work` in one write transaction: all of it commits, or none of it. The transaction ends by
   * giving the workspace a new write generation (cached reads of other processes see it changed);
   * last, so the generation's lock is held only until the commit.
   */
  async write<T>(
    work: (tx: WriteTransaction) => Promise<T>,
    /**
     * False for writes no cached read depends on (the writer lease, renewed every 5 s): a bump there
     * only queued the lease's renewal and the next data transaction on the generation's lock.
     */
    changesData = true,
  ): Promise<T> {
    try {
      return await this.runner.write(async (run) => {
        const tx = new WriteTransaction(run, this);
        const done = await work(tx);
        if (changesData) await tx.run("store/generation-bump");
        return done;
      });
    } finally {
      // Also after a failure: a commit whose answer was lost may still have happened.
      for (const listener of this.commitListeners) listener();
    }
  }

  /** A schema command (constraint or index) in its own transaction, never mixed with data writes. */
  schema(name: string, text: string, params: Record<string, unknown> = {}): Promise<PlainRecord[]> {
    return this.runner.schema({ name, text, params });
  }

  bind(name: string, params: Record<string, unknown>): BoundStatement {
    const statement = loadCypher(name);
    const declaresWorkspace = statement.params.some((p) => p.name === "workspace");
    const values = declaresWorkspace ? { workspace: this.workspace, ...params } : params;
    return { name, text: statement.text, params: bindCypherParams(statement, values) };
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}

export class WriteTransaction {
  constructor(
    private readonly runInTransaction: (statement: BoundStatement) => Promise<PlainRecord[]>,
    private readonly connection: Neo4jConnection,
  ) {}

  get tuning(): Neo4jTuning {
    return this.connection.tuning;
  }

  run(name: string, params: Record<string, unknown> = {}): Promise<PlainRecord[]> {
    return this.runInTransaction(this.connection.bind(name, params));
  }

  /**
   * UNWIND batches of the connection's writeBatchRows rows (as `$rows`), all inside this transaction.
   * They are sent together: the server runs them in order, one while the next is still being
   * encoded and sent, instead of idling for a round trip (and this process's other work) between them.
   */
  async runBatched(
    name: string,
    rows: unknown[],
    params: Record<string, unknown> = {},
  ): Promise<PlainRecord[]> {
    const size = this.connection.tuning.writeBatchRows;
    const sent: Promise<PlainRecord[]>[] = [];
    for (let start = 0; start < rows.length; start += size) {
      sent.push(this.run(name, { ...params, rows: rows.slice(start, start + size) }));
    }
    return (await allSettledOrFirstError(sent)).flat();
  }
}

/**
 * Waits for every statement sent (so none fails unobserved once another did) and returns their
 * results in order, or throws the first failure: after one, the server fails the rest of the
 * transaction anyway.
 */
export async function allSettledOrFirstError<T>(sent: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
