/**
 * Where a context-only query's time goes on Neo4j: every statement the store runs is timed (by its
 * cypher/ file name), over the latency questions of the parity bench, per mode. Prints per mode the
 * statements per query, the query p50/p95, and per statement its count per query and its total
 * and mean time. Reads the Neo4j workspace `bench/neo4j-parity.ts --keep DIR` left behind.
 * Run: NEO4J_URI=... NEO4J_PASSWORD=... npx tsx bench/neo4j-query-profile.ts --keep DIR
 *   [--copies 1] [--queries 30] [--modes local,hybrid]
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import type { BoundStatement } from "../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../src/storage/neo4j/neo4j-store.js";
import { latencyQuestions, percentile } from "./support/haystack.js";

function textOption(name: string): string | undefined {
  const args = process.argv.slice(2);
  return args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
}

interface StatementTimes {
  count: number;
  ms: number;
}

async function main(): Promise<void> {
  const dir = textOption("--keep");
  const uri = process.env.NEO4J_URI;
  if (!dir || !uri) throw new Error("Pass --keep DIR (as given to neo4j-parity.ts) and set NEO4J_URI.");
  const copies = Number(textOption("--copies") ?? 1);
  const queries = Number(textOption("--queries") ?? 30);
  const modes = (textOption("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const kg = await createKgrag({
    env: {},
    config: {
      workspace: join(dir, "neo4j", `parity-${copies}x`),
      storage: "neo4j",
      neo4j: {
        uri,
        username: process.env.NEO4J_USERNAME ?? "neo4j",
        password: process.env.NEO4J_PASSWORD ?? "",
        database: process.env.NEO4J_DATABASE,
      },
    },
  });
  const store = kg.services.store;
  if (!(store instanceof Neo4jGraphStore)) throw new Error("Not a Neo4j workspace.");
  const times = new Map<string, StatementTimes>();
  const runner = store.connection.runner;
  const read = runner.read.bind(runner);
  runner.read = async (statement: BoundStatement) => {
    const t0 = performance.now();
    try {
      return await read(statement);
    } finally {
      const entry = times.get(statement.name) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += performance.now() - t0;
      times.set(statement.name, entry);
    }
  };
  try {
    const questions = latencyQuestions(queries);
    for (const mode of modes) {
      for (const q of questions.slice(0, 5)) await runQuery(kg.services, q, { mode, contextOnly: true });
      times.clear();
      const latencies: number[] = [];
      for (const q of questions) {
        const t0 = performance.now();
        await runQuery(kg.services, q, { mode, contextOnly: true });
        latencies.push(performance.now() - t0);
      }
      latencies.sort((a, b) => a - b);
      const statements = [...times.values()].reduce((sum, t) => sum + t.count, 0);
      console.log(
        `\n${mode}: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, ` +
          `${(statements / questions.length).toFixed(1)} statements per query`,
      );
      const rows = [...times]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([name, t]) => [
          name,
          (t.count / questions.length).toFixed(1),
          (t.ms / questions.length).toFixed(1),
          (t.ms / t.count).toFixed(1),
        ]);
      console.log(formatTable(["statement", "per query", "ms per query", "ms each"], rows));
    }
  } finally {
    await kg.close();
  }
}

await main();
