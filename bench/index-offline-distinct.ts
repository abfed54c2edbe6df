/**
 * Offline indexing of real, distinct passages: the two 6,000-passage development sets built by
 * bench/datasets/build-*.py (wiki-vital-en: English Wikipedia summaries; songci-zh: Song ci and
 * poets' biographies). Each set is indexed from its corpus.jsonl into a fresh workspace by the
 * offline built-ins (NLP extractor, hashing embedder, extractive summaries and reports, SQLite),
 * in a child process of its own so that its peak RSS is its own. Prints the run's per-stage wall
 * times, the graph's counts, peak RSS, the machine's load, and a fingerprint of the workspace (two
 * runs built the same graph when every part's hash agrees). Last line: one JSON object.
 *
 * Run: npx tsx bench/index-offline-distinct.ts [--set wiki-vital-en|songci-zh] [--passages N]
 *        [--no-communities] [--no-thread] [--cli] [--cpu-prof DIR] [--keep DIR] [--config JSON]
 *        [--memory FILE]
 *   --no-thread the built-ins work on the main thread only (config builtInThread.enabled false)
 *   --cli       also times `kgrag index corpus.jsonl` as a whole CLI process (from sources, via tsx)
 *   --cpu-prof  writes a V8 CPU profile of each in-process run into DIR
 *   --keep      leaves the workspaces in DIR instead of deleting them
 *   --config    config merged into the run's, e.g. '{"extraction":{"offline":{"maxRelationshipsPerChunk":20}}}'
 *   --memory    samples the run's memory (RSS, its high-water mark, the main heap, threads alive) every
 *               250 ms and at each progress step into FILE (tab-separated), and prints the peak RSS
 *               of each set of steps that ran together
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { KgragConfigInput } from "../src/config.js";
import { createKgrag } from "../src/kgrag.js";
import { sqliteFile } from "../src/storage/sqlite/sqlite-store.js";
import { DEV_SETS } from "./support/dev-sets.js";
import { MemoryTrace } from "./support/memory-trace.js";
import { workspaceFingerprint } from "./support/workspace-fingerprint.js";

const SETS = ["wiki-vital-en", "songci-zh"];
const repo = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

interface RunFigures {
  set: string;
  passages: number;
  elapsedS: number;
  cpuS: number;
  /** The main thread's own CPU (Linux only; the workers' CPU is the rest of cpuS). */
  mainThreadCpuS: number | null;
  stagesS: Record<string, number>;
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  communities: number;
  peakRssMb: number;
  fingerprint: Record<string, string>;
  /** With --memory: the peak RSS of each set of progress steps that ran together. */
  memoryPeaks?: ReturnType<MemoryTrace["peaksBySteps"]>;
}

/** The set's corpus, cut to its first `passages` lines when asked (a copy in the temp folder). */
function corpusOf(set: string, passages: number | undefined, root: string): string {
  const dir = DEV_SETS[set];
  const path = dir && join(dir, "corpus.jsonl");
  if (!path || !existsSync(path)) {
    console.error(`Needs ${path ?? set}: build it with python3 bench/datasets/build-${set}.py`);
    process.exit(2);
  }
  if (passages === undefined) return path;
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim());
  const cut = join(root, `${set}-${passages}.jsonl`);
  writeFileSync(cut, `${lines.slice(0, passages).join("\n")}\n`);
  return cut;
}

/** In the child: one in-process index run, its figures as JSON on stdout. */
async function childRun(set: string, corpus: string, workspace: string): Promise<void> {
  const communities = !args.includes("--no-communities");
  const builtInThread = { enabled: !args.includes("--no-thread") };
  const extra = JSON.parse(option("--config") ?? "{}") as KgragConfigInput;
  const memoryFile = option("--memory");
  const trace = memoryFile ? new MemoryTrace() : undefined;
  const kgrag = await createKgrag({
    env: {},
    config: { ...extra, workspace, builtInThread },
    ...(trace ? { progress: trace.progress } : {}),
  });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const mainCpuBefore = mainThreadCpuMs();
  const summary = await kgrag.index([corpus], { communities });
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const mainCpuAfter = mainThreadCpuMs();
  if (trace && memoryFile) trace.close(memoryFile);
  const counts = await kgrag.services.store.counts();
  await kgrag.close();
  const figures: RunFigures = {
    set,
    passages: summary.documents,
    elapsedS: seconds(elapsed),
    cpuS: seconds((cpu.user + cpu.system) / 1000),
    mainThreadCpuS:
      mainCpuBefore === null || mainCpuAfter === null ? null : seconds(mainCpuAfter - mainCpuBefore),
    stagesS: Object.fromEntries(Object.entries(summary.stages).map(([stage, ms]) => [stage, seconds(ms)])),
    documents: counts.documents,
    chunks: counts.chunks,
    entities: counts.entities,
    relationships: counts.relationships,
    communities: counts.communities,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    fingerprint: workspaceFingerprint(sqliteFile(workspace)),
    ...(trace ? { memoryPeaks: trace.peaksBySteps() } : {}),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** CPU ms of this process's main thread (user + system, from /proc), or null off Linux. */
function mainThreadCpuMs(): number | null {
  const statFile = `/proc/self/task/${process.pid}/stat`;
  if (!existsSync(statFile)) return null;
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th fields.
  const stat = readFileSync(statFile, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
}

function seconds(ms: number): number {
  return +(ms / 1000).toFixed(2);
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

/** Runs this script as a child for one set; its last stdout line is its figures. */
function inProcessRun(set: string, corpus: string, workspace: string): RunFigures {
  const profile = option("--cpu-prof");
  const node = ["--import", "tsx", ...(profile ? ["--cpu-prof", "--cpu-prof-dir", profile] : [])];
  const passthrough = ["--no-communities", "--no-thread"].filter((flag) => args.includes(flag));
  const config = option("--config");
  if (config) passthrough.push("--config", config);
  const memory = option("--memory");
  if (memory) passthrough.push("--memory", resolve(memory));
  const child = spawnSync(
    process.execPath,
    [
      ...node,
      join(import.meta.dirname, "index-offline-distinct.ts"),
      "--child",
      set,
      corpus,
      workspace,
      ...passthrough,
    ],
    { cwd: repo, encoding: "utf8", maxBuffer: 64 * 2 ** 20 },
  );
  if (child.status !== 0) throw new Error(`index run of ${set} exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) as string) as RunFigures;
}

/** `kgrag index` as a whole process (start-up, loading the file, indexing, closing), timed from outside. */
function cliRun(corpus: string, workspace: string, root: string): { elapsedS: number; peakRssMb: number } {
  const rssFile = join(root, "cli-rss");
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      join(import.meta.dirname, "support/rss-probe.mjs"),
      "src/cli/run.ts",
      "index",
      corpus,
      "--workspace",
      workspace,
      "--json",
      ...(args.includes("--no-communities") ? ["--no-communities"] : []),
    ],
    {
      cwd: repo,
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, KGRAG_BENCH_RSS_FILE: rssFile },
    },
  );
  const elapsed = performance.now() - started;
  if (child.status !== 0) throw new Error(`kgrag index exited ${child.status}:\n${child.stderr}`);
  return { elapsedS: seconds(elapsed), peakRssMb: Math.round(Number(readFileSync(rssFile, "utf8"))) };
}

if (args[0] === "--child") {
  const [, set, corpus, workspace] = args;
  await childRun(set as string, corpus as string, workspace as string);
} else {
  const sets = option("--set") ? [option("--set") as string] : SETS;
  const passages = option("--passages") ? Number(option("--passages")) : undefined;
  const keep = option("--keep");
  const root = keep ?? mkdtempSync(join(tmpdir(), "kgrag-bench-distinct-"));
  mkdirSync(root, { recursive: true });
  const results: Record<string, unknown> = {};
  try {
    for (const set of sets) {
      const corpus = corpusOf(set, passages, root);
      const loadBefore = load();
      const figures = inProcessRun(set, corpus, join(root, `ws-${set}`));
      const row: Record<string, unknown> = { ...figures, loadBefore, loadAfter: load() };
      console.log(
        `${set}: ${figures.passages} passages in ${figures.elapsedS} s (CPU ${figures.cpuS} s, main thread ` +
          `${figures.mainThreadCpuS ?? "?"} s), ` +
          `peak RSS ${figures.peakRssMb} MB; ${figures.entities} entities, ${figures.relationships} ` +
          `relationships, ${figures.communities} communities; load ${loadBefore}`,
      );
      console.log(`  stages (s): ${JSON.stringify(figures.stagesS)}`);
      console.log(`  fingerprint: ${JSON.stringify(figures.fingerprint)}`);
      for (const peak of figures.memoryPeaks ?? []) {
        console.log(
          `  peak RSS ${peak.peakMb} MB (main heap ${peak.mainHeapMb} MB, ${peak.threads} threads): ${peak.steps}`,
        );
      }
      if (args.includes("--cli")) {
        const cli = cliRun(corpus, join(root, `ws-${set}-cli`), root);
        console.log(`  whole CLI process: ${cli.elapsedS} s, peak RSS ${cli.peakRssMb} MB; load ${load()}`);
        row.cli = cli;
      }
      results[set] = row;
    }
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
  console.log(JSON.stringify(results));
}
