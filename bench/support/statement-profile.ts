import { performance } from "node:perf_hooks";
import type { GraphStore } from "../../src/storage/graph-store.js";
import type { BoundStatement, StatementRunner } from "../../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";

/** Calls and wall time of one statement name (reads: the whole round trip). */
interface StatementFigures {
  calls: number;
  ms: number;
}

/**
 * Counts what a Neo4j store sends to the server: read statements, write transactions (and the
 * time each took to commit), and every statement by its cypher/ file name. Wraps the store's
 * runner in place, so only bench scripts use it.
 */
export class StatementProfile {
  readonly statements = new Map<string, StatementFigures>();
  /**
   * Write transactions by their first statement, with their whole time (statements, commit and
   * waiting for locks): what the statements do not account for is the commit.
   */
  readonly transactions = new Map<string, StatementFigures>();
  reads = 0;
  writeTransactions = 0;
  writeMs = 0;

  static attach(store: GraphStore): StatementProfile | undefined {
    if (!(store instanceof Neo4jGraphStore)) return undefined;
    const profile = new StatementProfile();
    profile.wrap(store.connection.runner);
    return profile;
  }

  private wrap(runner: StatementRunner): void {
    const read = runner.read.bind(runner);
    const write = runner.write.bind(runner);
    runner.read = (statement) => {
      this.reads += 1;
      return this.timed(statement, () => read(statement));
    };
    runner.write = async (work) => {
      this.writeTransactions += 1;
      const started = performance.now();
      let first: string | undefined;
      try {
        return await write((run) =>
          work((statement) => {
            first ??= statement.name;
            return this.timed(statement, () => run(statement));
          }),
        );
      } finally {
        const ms = performance.now() - started;
        this.writeMs += ms;
        const figures = this.transactions.get(first ?? "(empty)") ?? { calls: 0, ms: 0 };
        figures.calls += 1;
        figures.ms += ms;
        this.transactions.set(first ?? "(empty)", figures);
      }
    };
  }

  private async timed<T>(statement: BoundStatement, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      const figures = this.statements.get(statement.name) ?? { calls: 0, ms: 0 };
      figures.calls += 1;
      figures.ms += performance.now() - started;
      this.statements.set(statement.name, figures);
    }
  }

  /** The statements (or write transactions) that took longest, as table rows: name, calls, total ms. */
  top(limit: number, of: "statements" | "transactions" = "statements"): [string, string, string][] {
    return [...this[of].entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, limit)
      .map(([name, { calls, ms }]) => [name, String(calls), ms.toFixed(0)]);
  }
}
