/**
 * The same corpus indexed offline into the embedded store and into a live Neo4j 5.26: counts,
 * retrieval quality (all-gold@8 per mode), indexing wall time, context-only query latency per mode,
 * and the peak memory of both processes (kgrag and the Neo4j JVM).
 * Uses NEO4J_URI when set; otherwise starts the test Neo4j (test/neo4j-server/) and stops it after.
 * Run: npx tsx bench/neo4j-parity.ts [--copies 1|6] [--queries N] [--heap MB] [--page-cache MB]
 *   [--index-only] (no retrieval or latency: indexing figures only) [--neo4j-only] (skip SQLite)
 *   [--profile] (statements and write transactions sent to Neo4j, by cypher/ file) [--keep DIR] [--reuse]
 *   [--merge-batch N] (neo4j.mergeBatchChunks, default: the config's)
 *   [--warm-up N] (default 994, HotpotQA-100's size; 0 for a cold start)
 * Before each store is measured, --warm-up indexes N other documents (the first N passages, altered)
 * into a throwaway workspace of that store, which stays beside the measured one: a Neo4j server
 * runs for days, and a freshly started JVM spends its first minutes compiling Neo4j's code, which a
 * running server has long done (the JVM's CPU for HotpotQA-100 measured quiet: about 88 s on a
 * fresh server, 61-64 s after 200 warm-up documents, 41 s after 994); the kgrag process is warmed
 * the same way for the embedded store. --warm-up 0 measures a server started for the run.
 * --keep DIR keeps the SQLite workspace in DIR (and the Neo4j one on a given NEO4J_URI) under a fixed
 * name instead of deleting it; --reuse then skips indexing a workspace that already holds the corpus,
 * so a query-side change is measured in seconds, not minutes (index times are reported as 0).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import type { KgragConfigInput } from "../src/config.js";
import { createKgrag, type Kgrag } from "../src/kgrag.js";
import { readEvalQuestions, runEval } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import { startTestNeo4j, type TestNeo4j } from "../test/neo4j-server/test-neo4j.js";
import { HOTPOTQA, latencyQuestions, percentile, scaledCorpus, warmUpCorpus } from "./support/haystack.js";
import { processCpuSeconds } from "./support/process-cpu.js";
import { StageCpu, type StageCpuFigures } from "./support/stage-cpu.js";
import { StatementProfile } from "./support/statement-profile.js";

interface StoreFigures {
  indexSeconds: number;
  /**
   * CPU seconds spent indexing by this process and by the Neo4j JVM (when the bench started it):
   * on a busy machine wall time mostly measures the neighbours, CPU time the work.
   */
  cpuSeconds: { kgrag: number; neo4j?: number };
  /** Wall time per index stage (IndexSummary.stages), ms. */
  stagesMs: Record<string, number>;
  /** CPU seconds per index stage, kgrag's and the server's (see StageCpu). */
  stagesCpu: Record<string, StageCpuFigures>;
  counts: Record<string, number>;
  allGold8: Record<string, number>;
  p50: Record<string, number>;
  p95: Record<string, number>;
}

function option(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  return args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
}

function flag(name: string): boolean {
  return process.argv.slice(2).includes(name);
}

function textOption(name: string): string | undefined {
  const args = process.argv.slice(2);
  return args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
}

/** What a run measures besides indexing. */
interface MeasureOptions {
  queries: number;
  indexOnly: boolean;
  profile: boolean;
  /** Skip indexing a workspace that already holds the corpus (--keep, --reuse). */
  reuse: boolean;
  /** Documents indexed into a throwaway workspace before the measured run (0: none). */
  warmUpDocuments: number;
  warmUpCorpus: string;
}

async function main(): Promise<void> {
  const copies = option("--copies", 1);
  const kept = textOption("--keep");
  const measuring: MeasureOptions = {
    queries: option("--queries", 200),
    indexOnly: flag("--index-only"),
    profile: flag("--profile"),
    reuse: flag("--reuse"),
    warmUpDocuments: option("--warm-up", 994),
    warmUpCorpus: "",
  };
  const dir = kept ?? join(tmpdir(), `kgrag-bench-neo4j-parity-${copies}`);
  if (!kept) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const corpus = await scaledCorpus(dir, copies);
  if (measuring.warmUpDocuments > 0) {
    measuring.warmUpCorpus = await warmUpCorpus(dir, measuring.warmUpDocuments);
  }

  let server: TestNeo4j | undefined;
  const neo4j = process.env.NEO4J_URI
    ? {
        uri: process.env.NEO4J_URI,
        username: process.env.NEO4J_USERNAME ?? "neo4j",
        password: process.env.NEO4J_PASSWORD ?? "",
        database: process.env.NEO4J_DATABASE,
      }
    : await (async () => {
        server = await startTestNeo4j((line) => console.error(line), {
          heapMb: option("--heap", 2048),
          pageCacheMb: option("--page-cache", 2048),
        });
        return { uri: server.uri, username: server.username, password: server.password };
      })();
  const workspaceName = kept ? `parity-${copies}x` : `parity-${copies}x-${randomUUID().slice(0, 8)}`;
  try {
    const sqliteConfig = (name: string): KgragConfigInput => ({ workspace: join(dir, name) });
    const neo4jConfig = (name: string): KgragConfigInput => ({
      workspace: join(dir, "neo4j", name),
      storage: "neo4j",
      neo4j: {
        ...neo4j,
        ...(flag("--merge-batch") ? { mergeBatchChunks: option("--merge-batch", 0) } : {}),
      },
    });
    const sqlite = flag("--neo4j-only")
      ? undefined
      : await measure(sqliteConfig, workspaceName, corpus, measuring);
    // A server this bench started goes away with its data; on a given one the workspace stays
    // (deleting a large workspace in one transaction exceeds the server's transaction memory).
    const figures = await measure(neo4jConfig, workspaceName, corpus, measuring, server?.pid);
    if (!server) console.error(`The workspace "${workspaceName}" stays in ${neo4j.uri}.`);
    report(copies, measuring.warmUpDocuments, sqlite, figures, server);
  } finally {
    await server?.stop();
    if (!kept) await rm(dir, { recursive: true, force: true });
  }
}

/** Indexes the warm-up corpus into a throwaway workspace (see --warm-up). */
async function warmUp(config: KgragConfigInput, corpus: string, documents: number, serverPid?: number) {
  const kg = await createKgrag({ env: {}, config });
  try {
    const started = performance.now();
    const serverCpu = serverPid ? processCpuSeconds(serverPid) : undefined;
    await kg.index([corpus]);
    const serverCpuAfter = serverPid ? processCpuSeconds(serverPid) : undefined;
    const used =
      serverCpuAfter !== undefined && serverCpu !== undefined ? serverCpuAfter - serverCpu : undefined;
    console.error(
      `${kg.services.store.kind}: warm-up of ${documents} documents in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s` +
        (used === undefined ? "" : ` (Neo4j CPU ${used.toFixed(1)} s)`),
    );
  } finally {
    await kg.close();
  }
}

async function measure(
  configFor: (workspaceName: string) => KgragConfigInput,
  workspaceName: string,
  corpus: string,
  { queries, indexOnly, profile, reuse, warmUpDocuments, warmUpCorpus }: MeasureOptions,
  serverPid?: number,
): Promise<StoreFigures> {
  if (warmUpDocuments > 0) {
    await warmUp(configFor(`warm-up-${randomUUID().slice(0, 8)}`), warmUpCorpus, warmUpDocuments, serverPid);
  }
  const kg = await createKgrag({ env: {}, config: configFor(workspaceName) });
  try {
    const statements = profile ? StatementProfile.attach(kg.services.store) : undefined;
    const loadAtStart = loadAverage();
    const started = performance.now();
    const cpuAtStart = {
      kgrag: process.cpuUsage(),
      neo4j: serverPid ? processCpuSeconds(serverPid) : undefined,
    };
    const indexed = reuse && (await kg.services.store.counts()).documents > 0;
    const stageCpu = StageCpu.attach(serverPid);
    const summary = indexed ? undefined : await kg.index([corpus]).finally(() => stageCpu.stop());
    const indexSeconds = indexed ? 0 : (performance.now() - started) / 1000;
    const kgragCpu = process.cpuUsage(cpuAtStart.kgrag);
    const serverCpu = serverPid ? processCpuSeconds(serverPid) : undefined;
    const cpuSeconds = {
      kgrag: (kgragCpu.user + kgragCpu.system) / 1e6,
      ...(serverCpu !== undefined && cpuAtStart.neo4j !== undefined
        ? { neo4j: serverCpu - cpuAtStart.neo4j }
        : {}),
    };
    const counts = await kg.services.store.counts();
    const communities = (await kg.services.store.listCommunities()).length;
    console.error(
      `${kg.services.store.kind}: indexed in ${indexSeconds.toFixed(1)} s ` +
        `(load average at the start ${loadAtStart}, at the end ${loadAverage()}); CPU s: ` +
        Object.entries(cpuSeconds)
          .map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`)
          .join(", "),
    );
    if (summary) console.error(`stages (ms): ${JSON.stringify(summary.stages)}`);
    if (summary) console.error(`stages (CPU s): ${formatStageCpu(stageCpu.figures())}`);
    if (statements) printProfile(statements);
    const figures = {
      indexSeconds,
      cpuSeconds,
      stagesMs: summary?.stages ?? {},
      stagesCpu: stageCpu.figures(),
      counts: { ...counts, communities },
    };
    if (indexOnly) return { ...figures, allGold8: {}, p50: {}, p95: {} };
    const questions = await readEvalQuestions(join(HOTPOTQA, "questions.jsonl"));
    const evaluation = await runEval(kg.services, questions, { ks: [8], answers: false });
    const allGold8 = Object.fromEntries(
      Object.entries(evaluation.modes).map(([mode, scores]) => [mode, scores?.allGold[8] ?? 0]),
    );
    const { p50, p95 } = await latency(kg, latencyQuestions(queries));
    return { ...figures, allGold8, p50, p95 };
  } finally {
    await kg.close();
  }
}

async function latency(kg: Kgrag, questions: string[]) {
  const p50: Record<string, number> = {};
  const p95: Record<string, number> = {};
  for (const mode of QUERY_MODES as readonly QueryMode[]) {
    for (const question of questions.slice(0, 10))
      await runQuery(kg.services, question, { mode, contextOnly: true });
    const times: number[] = [];
    for (const question of questions) {
      const t0 = performance.now();
      await runQuery(kg.services, question, { mode, contextOnly: true });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    p50[mode] = percentile(times, 50);
    p95[mode] = percentile(times, 95);
  }
  return { p50, p95 };
}

/** "stage kgrag+server" per stage, e.g. "embed 16.2+31.0". */
function formatStageCpu(figures: Record<string, StageCpuFigures>): string {
  return Object.entries(figures)
    .map(
      ([stage, cpu]) =>
        `${stage} ${cpu.kgrag.toFixed(1)}${cpu.server === undefined ? "" : `+${cpu.server.toFixed(1)}`}`,
    )
    .join(", ");
}

function printProfile(profile: StatementProfile): void {
  console.error(
    `neo4j: ${profile.writeTransactions} write transactions (${(profile.writeMs / 1000).toFixed(1)} s), ` +
      `${profile.reads} reads; statements by total time:`,
  );
  console.error(formatTable(["statement", "calls", "ms"], profile.top(25)));
  console.error("write transactions by first statement (whole transaction, commit included):");
  console.error(formatTable(["transaction", "count", "ms"], profile.top(15, "transactions")));
}

/** The 1, 5 and 15 minute load averages: the machine may be shared, and wall times with it. */
function loadAverage(): string {
  return loadavg()
    .map((load) => load.toFixed(1))
    .join(" / ");
}

/** Peak resident memory of a process, from /proc (VmHWM), in MB. */
function peakRssMb(pid: number | "self"): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

function report(
  copies: number,
  warmUpDocuments: number,
  sqlite: StoreFigures | undefined,
  neo4j: StoreFigures,
  server: TestNeo4j | undefined,
): void {
  const stores = sqlite ? { sqlite, neo4j } : { neo4j };
  const keys = Object.keys(neo4j.counts);
  const warm = warmUpDocuments > 0 ? `after a warm-up of ${warmUpDocuments} documents` : "cold start";
  console.log(`\nHotpotQA-100 corpus x${copies}, offline built-ins, ${warm}\n`);
  console.log(
    formatTable(
      ["", ...keys, "index s", "CPU s kgrag", "CPU s Neo4j"],
      Object.entries(stores).map(([name, figures]) => [
        name,
        ...keys.map((k) => String(figures.counts[k])),
        figures.indexSeconds.toFixed(1),
        figures.cpuSeconds.kgrag.toFixed(1),
        figures.cpuSeconds.neo4j?.toFixed(1) ?? "-",
      ]),
    ),
  );
  if (Object.keys(neo4j.p50).length > 0) {
    console.log("");
    console.log(
      formatTable(
        [
          "mode",
          ...Object.keys(stores).flatMap((name) => [
            `all-gold@8 ${name}`,
            `p50 ms ${name}`,
            `p95 ms ${name}`,
          ]),
        ],
        QUERY_MODES.map((mode) => [
          mode,
          ...Object.values(stores).flatMap((figures) => [
            (figures.allGold8[mode] ?? 0).toFixed(2),
            (figures.p50[mode] ?? 0).toFixed(1),
            (figures.p95[mode] ?? 0).toFixed(1),
          ]),
        ]),
      ),
    );
  }
  const kgragPeak = peakRssMb("self");
  const neo4jPeak = server ? peakRssMb(server.pid) : undefined;
  const ratio = !sqlite
    ? "? (SQLite skipped)"
    : sqlite.indexSeconds > 0
      ? `${(neo4j.indexSeconds / sqlite.indexSeconds).toFixed(2)}x`
      : "not measured (--reuse)";
  console.log(
    `\nindexing time neo4j / sqlite: ${ratio}; ` +
      `peak RSS: kgrag ${kgragPeak ?? "?"} MB, Neo4j ${neo4jPeak ?? "? (external server)"} MB`,
  );
  console.log(
    JSON.stringify({
      copies,
      warmUpDocuments,
      sqlite,
      neo4j,
      peakRssMb: { kgrag: kgragPeak, neo4j: neo4jPeak },
    }),
  );
}

await main();
