/**
 * The server's CPU for the merge stage alone, by statement: registers HotpotQA-100 on Neo4j, then
 * extracts (offline) and merges it, without the other stages (no chunk vectors beside the merges).
 * Each store call of a merge (its plan's reads, its commit) is charged the JVM's CPU time (from /proc)
 * used while it ran: merges run one at a time and the offline extraction runs in this process, so
 * the server does little else meanwhile (its background work, GC and compilation, is charged too).
 * Calls that run at the same time (a plan's reads, sent together) are each charged what they share:
 * compare the CPU of the whole stage, and the commits', rather than the sum of the reads.
 * --statements also runs every statement one at a time and charges each its server CPU (slower: no
 * statement waits in the server's queue; a commit's own work is then what its statements leave).
 * Starts its own test Neo4j.
 * Run: npx tsx bench/neo4j-merge-cpu.ts [--copies 1] [--statements] [--heap MB] [--page-cache MB]
 *   [--merge-batch N] (neo4j.mergeBatchChunks, default: the config's)
 */
import { mkdir, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import { loadSources } from "../src/ingest/loaders.js";
import { createKgrag } from "../src/kgrag.js";
import { extractGraph } from "../src/pipeline/extract-graph.js";
import { registerDocuments } from "../src/pipeline/register-documents.js";
import type { BoundStatement, StatementRunner } from "../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../src/storage/neo4j/neo4j-store.js";
import { startTestNeo4j } from "../test/neo4j-server/test-neo4j.js";
import { scaledCorpus } from "./support/haystack.js";
import { runningProcessCpuSeconds } from "./support/process-cpu.js";

function flag(name: string): boolean {
  return process.argv.slice(2).includes(name);
}

function option(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  return args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
}

interface Figures {
  calls: number;
  cpuSeconds: number;
  ms: number;
}

/** Charges each call of these store methods the server CPU and the wall time it used. */
function measureCalls(store: object, methods: string[], pid: number, figures: Map<string, Figures>): void {
  const target = store as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of methods) {
    const original = target[method]!.bind(store);
    target[method] = async (...args) => {
      const cpu = runningProcessCpuSeconds(pid);
      const started = performance.now();
      try {
        return await original(...args);
      } finally {
        const entry = figures.get(method) ?? { calls: 0, cpuSeconds: 0, ms: 0 };
        entry.calls += 1;
        entry.cpuSeconds += runningProcessCpuSeconds(pid) - cpu;
        entry.ms += performance.now() - started;
        figures.set(method, entry);
      }
    };
  }
}

const MERGE_CALLS = [
  "getChunkMentions",
  "getEntityMentions",
  "getRelationshipMentions",
  "getEntities",
  "getRelationships",
  "commitChunkMerges",
];

/** Runs statements one at a time (reads and writes alike), charging each the server CPU it used. */
function serialiseAndMeasure(runner: StatementRunner, pid: number, figures: Map<string, Figures>): void {
  let queue: Promise<unknown> = Promise.resolve();
  const measured = <T>(statement: BoundStatement, run: () => Promise<T>): Promise<T> => {
    const next = queue.then(async () => {
      const cpu = runningProcessCpuSeconds(pid);
      const started = performance.now();
      try {
        return await run();
      } finally {
        const entry = figures.get(statement.name) ?? { calls: 0, cpuSeconds: 0, ms: 0 };
        entry.calls += 1;
        entry.cpuSeconds += runningProcessCpuSeconds(pid) - cpu;
        entry.ms += performance.now() - started;
        figures.set(statement.name, entry);
      }
    });
    queue = next.catch(() => {});
    return next;
  };
  const read = runner.read.bind(runner);
  const write = runner.write.bind(runner);
  runner.read = (statement) => measured(statement, () => read(statement));
  runner.write = (work) => write((run) => work((statement) => measured(statement, () => run(statement))));
}

async function main(): Promise<void> {
  const copies = option("--copies", 1);
  const dir = join(tmpdir(), `kgrag-bench-neo4j-merge-cpu-${copies}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const corpus = await scaledCorpus(dir, copies);
  const server = await startTestNeo4j((line) => console.error(line), {
    heapMb: option("--heap", 2048),
    pageCacheMb: option("--page-cache", 2048),
  });
  try {
    const kg = await createKgrag({
      env: {},
      config: {
        workspace: join(dir, "neo4j", "merge-cpu"),
        storage: "neo4j",
        neo4j: {
          uri: server.uri,
          username: server.username,
          password: server.password,
          ...(flag("--merge-batch") ? { mergeBatchChunks: option("--merge-batch", 0) } : {}),
        },
      },
    });
    try {
      const store = kg.services.store;
      if (!(store instanceof Neo4jGraphStore)) throw new Error("Not a Neo4j store.");
      const { documents } = await loadSources([corpus]);
      await registerDocuments(kg.services, documents);
      const calls = new Map<string, Figures>();
      measureCalls(store, MERGE_CALLS, server.pid, calls);
      const statements = new Map<string, Figures>();
      if (flag("--statements")) serialiseAndMeasure(store.connection.runner, server.pid, statements);
      const load = loadavg().map((l) => l.toFixed(1));
      const cpuAtStart = runningProcessCpuSeconds(server.pid);
      const kgragAtStart = process.cpuUsage();
      const started = performance.now();
      const result = await extractGraph(
        kg.services,
        kg.components.extractor,
        documents.map((d) => d.id),
      );
      const wallSeconds = (performance.now() - started) / 1000;
      const serverCpu = runningProcessCpuSeconds(server.pid) - cpuAtStart;
      const kgragCpu = process.cpuUsage(kgragAtStart);
      const counts = await store.counts();
      console.log(
        `merged ${result.merged} chunks in ${wallSeconds.toFixed(1)} s (` +
          `load average ${load.join(" / ")} at the start, ${loadavg()
            .map((l) => l.toFixed(1))
            .join(" / ")} at the end)`,
      );
      console.log(
        `CPU s: Neo4j ${serverCpu.toFixed(1)}, kgrag ${((kgragCpu.user + kgragCpu.system) / 1e6).toFixed(1)}; ` +
          `entities ${counts.entities}, relationships ${counts.relationships}`,
      );
      for (const [title, figures] of [
        ["store call", calls],
        ["statement", statements],
      ] as const) {
        if (figures.size === 0) continue;
        const rows = [...figures.entries()]
          .sort((a, b) => b[1].cpuSeconds - a[1].cpuSeconds)
          .map(([name, f]) => [name, String(f.calls), f.cpuSeconds.toFixed(2), f.ms.toFixed(0)]);
        console.log(formatTable([title, "calls", "Neo4j CPU s", "ms"], rows));
      }
    } finally {
      await kg.close();
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
