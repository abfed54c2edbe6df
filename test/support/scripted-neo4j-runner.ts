import { DEFAULT_TUNING, Neo4jConnection } from "../../src/storage/neo4j/connection.js";
import type { BoundStatement, Neo4jTuning, StatementRunner } from "../../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import type { PlainRecord } from "../../src/storage/neo4j/record-mapping.js";

/**
 * Neo4j cannot run here, so unit tests script the database side: they check what the adapter
 * sends (which statement, with which parameters, in which transaction) and how it reads answers.
 * Parameters are bound through the real cypher/ headers, so a call with a missing or misspelt
 * parameter fails.
 */

export interface Call {
  kind: "read" | "write" | "schema";
  tx: number;
  name: string;
  params: Record<string, unknown>;
}

export type Answer = (params: Record<string, unknown>, call: number) => PlainRecord[];

export class ScriptedRunner implements StatementRunner {
  readonly target = "bolt://scripted#";
  readonly calls: Call[] = [];
  private transactions = 0;
  private readonly seen = new Map<string, number>();

  constructor(private readonly answers: Record<string, Answer> = {}) {}

  private answer(kind: Call["kind"], tx: number, statement: BoundStatement): PlainRecord[] {
    this.calls.push({ kind, tx, name: statement.name, params: statement.params });
    const count = this.seen.get(statement.name) ?? 0;
    this.seen.set(statement.name, count + 1);
    return this.answers[statement.name]?.(statement.params, count) ?? [];
  }

  async read(statement: BoundStatement) {
    return this.answer("read", 0, statement);
  }

  async write<T>(work: (run: (s: BoundStatement) => Promise<PlainRecord[]>) => Promise<T>) {
    const tx = ++this.transactions;
    return work(async (s) => this.answer("write", tx, s));
  }

  async schema(statement: BoundStatement) {
    return this.answer("schema", 0, statement);
  }

  async close() {}

  names(kind?: Call["kind"]) {
    return this.calls.filter((c) => !kind || c.kind === kind).map((c) => c.name);
  }
}

/**
 * `generationReuseMs` 0: every cached read checks the write generation (see generation-cache.ts);
 * `tuning`: `neo4j` config keys the store reads, over their defaults.
 */
export function storeWith(
  answers: Record<string, Answer> = {},
  generationReuseMs?: number,
  tuning: Partial<Neo4jTuning> = {},
) {
  const runner = new ScriptedRunner(answers);
  const connection = new Neo4jConnection(runner, "team-a", { ...DEFAULT_TUNING, ...tuning });
  return { runner, store: new Neo4jGraphStore(connection, generationReuseMs) };
}

export const one = (record: PlainRecord) => () => [record];
