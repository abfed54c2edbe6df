/**
 * Retrieval latency at the ~6,000-passage scale, offline and context-only: the HotpotQA corpus
 * (994 passages) plus five altered copies in which every capitalised word has its vowels rotated,
 * so each copy brings its own entities and relationships instead of repeating the same graph.
 * Indexed once into a workspace under the temp folder (reused by later runs); then each HotpotQA
 * question (and its altered twin) is asked in every mode. Target: p95 under 100 ms per mode.
 * With --quality it also scores retrieval on the original questions against this six times larger
 * haystack (all-gold@5/8/10 and MRR, and bridge questions apart; the copies are distractors that share every lower-case word with the gold
 * passages, so this is harder than the 994-passage set, not a second dataset).
 * --query JSON overrides the workspace's query config (as in bench/retrieval-sets.ts), e.g.
 * '{"ranking":{"relationshipSeedWeight":"rank"}}' for global's seeds before issue 15's fifth round.
 * Run: npx tsx bench/query-latency.ts [--fresh] [--queries N] [--dir DIR] [--quality] [--query JSON]
 */
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import type { KgragConfigInput } from "../src/config.js";
import { createKgrag } from "../src/kgrag.js";
import { readEvalQuestions, runEval } from "../src/query/eval/run-eval.js";
import { QUERY_MODES } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import type { KgragServices } from "../src/services.js";
import { HOTPOTQA, latencyQuestions, percentile, scaledCorpus } from "./support/haystack.js";

const DATA = HOTPOTQA;
const COPIES = 6;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const limit = args.includes("--queries") ? Number(args[args.indexOf("--queries") + 1]) : 200;
  const dir = args.includes("--dir")
    ? (args[args.indexOf("--dir") + 1] ?? "")
    : join(tmpdir(), "kgrag-bench-latency");
  if (args.includes("--fresh") && existsSync(dir)) await rm(dir, { recursive: true });
  await mkdir(dir, { recursive: true });
  const corpus = await scaledCorpus(dir, COPIES);
  const query = JSON.parse(
    args.includes("--query") ? (args[args.indexOf("--query") + 1] ?? "{}") : "{}",
  ) as KgragConfigInput["query"];

  const kgrag = await createKgrag({ env: {}, config: { workspace: join(dir, "workspace"), query } });
  try {
    const started = performance.now();
    const s = await kgrag.index([corpus]);
    console.log(
      `${s.documents} documents, ${s.chunks} chunks, ${s.entities} entities, ${s.relationships} relationships ` +
        `(index step ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    const questions = latencyQuestions(limit);

    const rows: string[][] = [];
    for (const mode of QUERY_MODES) {
      // Warm-up (untimed): the first searches load each vector namespace into memory.
      for (const question of questions.slice(0, 10))
        await runQuery(kgrag.services, question, { mode, contextOnly: true });
      const times: number[] = [];
      // CPU time per query is steadier than wall time when other processes share the machine.
      const cpuBefore = process.cpuUsage();
      for (const question of questions) {
        const t0 = performance.now();
        await runQuery(kgrag.services, question, { mode, contextOnly: true });
        times.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpuBefore);
      times.sort((a, b) => a - b);
      rows.push([
        mode,
        String(times.length),
        ((cpu.user + cpu.system) / 1000 / Math.max(1, times.length)).toFixed(1),
        percentile(times, 50).toFixed(1),
        percentile(times, 95).toFixed(1),
        (times.at(-1) ?? 0).toFixed(1),
      ]);
    }
    console.log(formatTable(["mode", "queries", "cpu ms/query", "p50 ms", "p95 ms", "max ms"], rows));
    if (args.includes("--quality")) await printQuality(kgrag.services);
  } finally {
    await kgrag.close();
  }
}

const QUALITY_KS = [5, 8, 10];

/** all-gold@5/8/10 and MRR of every mode, and all-gold on bridge questions, in this larger haystack. */
async function printQuality(services: KgragServices): Promise<void> {
  const questions = await readEvalQuestions(join(DATA, "questions.jsonl"));
  const report = await runEval(services, questions, { ks: QUALITY_KS, answers: false });
  const rows = Object.entries(report.modes).map(([mode, scores]) => [
    mode,
    ...QUALITY_KS.map((k) => (scores?.allGold[k] ?? 0).toFixed(2)),
    (scores?.mrr ?? 0).toFixed(2),
    ...QUALITY_KS.map((k) => (scores?.byType.bridge?.allGold[k] ?? 0).toFixed(2)),
  ]);
  const headers = [
    "mode",
    ...QUALITY_KS.map((k) => `all-gold@${k}`),
    "MRR",
    ...QUALITY_KS.map((k) => `bridge @${k}`),
  ];
  console.log(`\n${formatTable(headers, rows)}`);
}

await main();
