/**
 * CLI start-up: whole-process wall time and peak memory of the built CLI (`node bin/kgrag.js`),
 * the way a user pays for it. Builds the demo workspace first if it is missing (`kgrag demo`),
 * then runs each command N times as a child process. Peak RSS comes from GNU time
 * (/usr/bin/time -f %M) when the machine has it. Needs `npm run build` first.
 * Targets (median): --help 200 ms, status 400 ms, an offline query 800 ms.
 * CPU time (user + sys, from GNU time too) is printed beside wall time: on a shared machine it is
 * disturbed less by other jobs than wall time. `--cli` times another build (e.g. a checkout of the
 * commit before a change, bundled) on the same workspace, to compare the two back to back.
 * Run: npx tsx bench/cli-startup.ts [--runs N] [--dir DIR] [--cli path/to/bin/kgrag.js]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";

const ROOT = join(import.meta.dirname, "..");
const CLI = option("--cli") ?? join(ROOT, "bin", "kgrag.js");
const GNU_TIME = "/usr/bin/time";

interface Run {
  ms: number;
  /** Peak resident set size in MB, when GNU time is there to measure it. */
  rssMb?: number;
  /** User + system CPU time in ms, from GNU time too. */
  cpuMs?: number;
}

interface Summary {
  command: string;
  runs: number;
  medianMs: number;
  p90Ms: number;
  peakRssMb: number | null;
  medianCpuMs: number | null;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** One run of `kgrag <args>` in `cwd`; a failing command stops the benchmark. */
function runOnce(args: string[], cwd: string, measureRss: boolean): Run {
  const [command, commandArgs] = measureRss
    ? [GNU_TIME, ["-f", "%M %U %S", process.execPath, CLI, ...args]]
    : [process.execPath, [CLI, ...args]];
  const start = performance.now();
  const child = spawnSync(command, commandArgs, { cwd, encoding: "utf8", env: offlineEnv() });
  const ms = performance.now() - start;
  if (child.status !== 0) {
    throw new Error(`kgrag ${args.join(" ")} exited ${child.status}:\n${child.stderr}`);
  }
  if (!measureRss) return { ms };
  const [kb, user, sys] = (child.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
  const cpuMs = ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000;
  return {
    ms,
    rssMb: kb !== undefined && Number.isFinite(kb) ? kb / 1024 : undefined,
    cpuMs: Number.isFinite(cpuMs) ? cpuMs : undefined,
  };
}

/** No LLM or embedding endpoint: the figures are those of the offline built-ins. */
function offlineEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith("KGRAG_") || name.startsWith("OPENAI_") || name.startsWith("NEO4J_"))
      delete env[name];
  }
  return env;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function summarise(command: string, runs: Run[]): Summary {
  const times = runs.map((r) => r.ms).sort((a, b) => a - b);
  const rss = runs.flatMap((r) => (r.rssMb === undefined ? [] : [r.rssMb]));
  const cpu = runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs])).sort((a, b) => a - b);
  return {
    command,
    runs: runs.length,
    medianMs: Math.round(percentile(times, 50)),
    p90Ms: Math.round(percentile(times, 90)),
    peakRssMb: rss.length ? Math.round(Math.max(...rss)) : null,
    medianCpuMs: cpu.length ? Math.round(percentile(cpu, 50)) : null,
  };
}

/** The one-minute load average: wall times taken above about 2 (two cores) are inflated. */
function loadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 10) / 10;
}

function firstSampleQuestion(): string {
  const line = readFileSync(join(ROOT, "samples", "questions.jsonl"), "utf8").split("\n")[0] ?? "";
  return (JSON.parse(line) as { question: string }).question;
}

function main(): void {
  if (!existsSync(join(ROOT, "dist", "cli", "kgrag-cli.js"))) {
    throw new Error("No built CLI: run `npm run build` first.");
  }
  const runs = Number(option("--runs") ?? 5);
  const dir = option("--dir") ?? join(tmpdir(), "kgrag-bench-cli-startup");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "kgrag-demo", "kgrag.sqlite"))) {
    process.stderr.write(`Building the demo workspace in ${dir}/kgrag-demo ...\n`);
    runOnce(["demo", "--questions", "1"], dir, false);
  }
  const measureRss = existsSync(GNU_TIME);
  const question = firstSampleQuestion();
  const commands: [string, string[]][] = [
    ["kgrag --help", ["--help"]],
    ["kgrag status", ["status", "-w", "kgrag-demo"]],
    ["kgrag query --context-only", ["query", question, "--context-only", "-w", "kgrag-demo"]],
    ["kgrag query (extractive answer)", ["query", question, "-w", "kgrag-demo"]],
  ];
  const summaries: Summary[] = [];
  const loadBefore = loadAverage();
  for (const [name, args] of commands) {
    runOnce(args, dir, false); // warm the file cache; not counted
    const measured = Array.from({ length: runs }, () => runOnce(args, dir, measureRss));
    summaries.push(summarise(name, measured));
  }
  const load = { before: loadBefore, after: loadAverage() };
  const rows = summaries.map((s) => [
    s.command,
    s.medianMs,
    s.p90Ms,
    s.medianCpuMs ?? "n/a",
    s.peakRssMb ?? "n/a",
  ]);
  const header = ["command", "median ms", "p90 ms", "median CPU ms", "peak RSS MB"];
  process.stdout.write(`${formatTable(header, rows)}\n`);
  process.stdout.write(
    `(${runs} runs each, Node ${process.version}, ${CLI}, workspace ${dir}/kgrag-demo; ` +
      `load average ${load.before} before, ${load.after} after)\n`,
  );
  process.stdout.write(
    `${JSON.stringify({ bench: "cli-startup", runs, node: process.version, cli: CLI, load, summaries })}\n`,
  );
}

main();
