/**
 * Retrieval quality on every development set in one table, offline (offline-nlp extractor, hashing
 * embedder): all-gold@5/8/10 (every gold passage among the first K retrieved passages) and MRR per
 * mode, next to plain BM25 (the store's full-text index alone, passage level). Sets:
 * - hotpotqa-100: ../shared/datasets/hotpotqa-100 (994 passages, 100 questions);
 * - wiki-vital-en, songci-zh: built by bench/datasets/build-*.py into bench/datasets/.cache
 *   (6,000 distinct passages each; see bench/datasets/README.md). A set not built is skipped.
 * Each set is indexed once into a workspace under the temp folder, or under
 * KGRAG_BENCH_WORKSPACES when set (reused by later runs).
 * With --latency it also times every mode, context only, on each set's questions (p50/p95), with
 * the machine's load average beside each figure.
 * --query JSON overrides the workspace's query config (e.g. '{"fusion":{"hashingVector":1}}', the
 * fusion before issue 15) to compare settings on the same index.
 * --extraction JSON sets the index's extraction config (e.g. '{"offline":{"maxRelationshipsPerChunk":20}}');
 * its workspaces are kept apart from the default ones (a suffix of their folder names).
 * Run: npx tsx bench/retrieval-sets.ts [--sets a,b] [--modes naive,...] [--query JSON] [--extraction JSON]
 *   [--latency] [--fresh]
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import type { KgragConfigInput } from "../src/config.js";
import { createKgrag, type Kgrag } from "../src/kgrag.js";
import { mean, scoreRetrieval } from "../src/query/eval/metrics.js";
import { type EvalQuestion, readEvalQuestions, runEval } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import type { KgragServices } from "../src/services.js";
import { bm25Titles, DEV_SETS, KS, setWorkspace } from "./support/dev-sets.js";
import { percentile } from "./support/haystack.js";

const SETS = DEV_SETS;

interface Row {
  set: string;
  mode: string;
  allGold: Record<number, number>;
  mrr: number;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const sets = option("--sets")?.split(",") ?? Object.keys(SETS);
  const modes = (option("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const query = JSON.parse(option("--query") ?? "{}") as KgragConfigInput["query"];
  const extractionOption = option("--extraction");
  const extraction = JSON.parse(extractionOption ?? "{}") as KgragConfigInput["extraction"];
  const suffix = extractionOption
    ? `-x${createHash("sha256").update(extractionOption).digest("hex").slice(0, 8)}`
    : "";
  const rows: Row[] = [];
  const latency: string[][] = [];
  for (const set of sets) {
    const dir = SETS[set];
    if (!dir || !existsSync(join(dir, "corpus.jsonl"))) {
      console.log(`${set}: not found at ${dir ?? "?"} (build it first; see bench/datasets/README.md)`);
      continue;
    }
    const workspace = setWorkspace(set) + suffix;
    if (args.includes("--fresh") && existsSync(workspace)) await rm(workspace, { recursive: true });
    const kgrag = await createKgrag({ env: {}, config: { workspace, query, extraction } });
    try {
      await indexSet(kgrag, set, dir);
      const questions = await readEvalQuestions(join(dir, "questions.jsonl"));
      rows.push({ set, mode: "bm25", ...(await bm25Only(kgrag.services, questions)) });
      const report = await runEval(kgrag.services, questions, { modes, ks: KS, answers: false });
      for (const [mode, s] of Object.entries(report.modes))
        rows.push({ set, mode, allGold: s.allGold, mrr: s.mrr });
      if (args.includes("--latency"))
        latency.push(...(await timeModes(kgrag.services, set, questions, modes)));
      console.log(formatTable(headers(), rows.filter((r) => r.set === set).map(cells)));
    } finally {
      await kgrag.close();
    }
  }
  console.log(`\nAll sets\n${formatTable(headers(), rows.map(cells))}`);
  if (latency.length)
    console.log(
      `\n${formatTable(["set", "mode", "queries", "p50 ms", "p95 ms", "load avg (1 min)"], latency)}`,
    );
}

async function indexSet(kgrag: Kgrag, set: string, dir: string): Promise<void> {
  const started = performance.now();
  const s = await kgrag.index([join(dir, "corpus.jsonl")]);
  console.log(
    `${set}: ${s.documents} documents, ${s.chunks} chunks, ${s.entities} entities, ${s.relationships} relationships ` +
      `(index step ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

function headers(): string[] {
  return ["set", "mode", ...KS.map((k) => `all-gold@${k}`), "MRR"];
}

function cells(r: Row): string[] {
  return [r.set, r.mode, ...KS.map((k) => (r.allGold[k] ?? 0).toFixed(2)), r.mrr.toFixed(2)];
}

/** The full-text index alone, passage level: the baseline every mode should reach. */
async function bm25Only(
  services: KgragServices,
  questions: EvalQuestion[],
): Promise<Pick<Row, "allGold" | "mrr">> {
  const hits: Record<number, number[]> = Object.fromEntries(KS.map((k) => [k, []]));
  const reciprocal: number[] = [];
  for (const q of questions) {
    const scores = scoreRetrieval(await bm25Titles(services, q.question), q.gold_titles, KS);
    for (const k of KS) hits[k]?.push(scores.allGold[k] ?? 0);
    reciprocal.push(scores.reciprocalRank);
  }
  return { allGold: Object.fromEntries(KS.map((k) => [k, mean(hits[k] ?? [])])), mrr: mean(reciprocal) };
}

/** Context-only query time per mode (after a 10-question untimed warm-up). */
async function timeModes(
  services: KgragServices,
  set: string,
  questions: EvalQuestion[],
  modes: QueryMode[],
): Promise<string[][]> {
  const rows: string[][] = [];
  for (const mode of modes) {
    for (const q of questions.slice(0, 10)) await runQuery(services, q.question, { mode, contextOnly: true });
    const times: number[] = [];
    for (const q of questions) {
      const t0 = performance.now();
      await runQuery(services, q.question, { mode, contextOnly: true });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    rows.push([
      set,
      mode,
      String(times.length),
      percentile(times, 50).toFixed(1),
      percentile(times, 95).toFixed(1),
      // Timings are only comparable at similar load: the machine is shared.
      loadavg()[0]?.toFixed(2) ?? "?",
    ]);
  }
  return rows;
}

await main();
