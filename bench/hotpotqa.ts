/**
 * Retrieval quality on the HotpotQA development set (../shared/datasets/hotpotqa-100), offline:
 * indexes corpus.jsonl once into a workspace under the temp folder (reused by later runs), then
 * scores every mode with both graph rankings (personalised PageRank and LightRAG's degree/weight)
 * by all-gold@K, recall@K and MRR, overall and split into bridge and comparison questions.
 * A BM25-only row (the store's full-text index) is printed next to the dataset's BM25 reference.
 * Run: npx tsx bench/hotpotqa.ts [--modes naive,local,...] [--rankings ppr,degree] [--workspace DIR] [--fresh]
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { mean, scoreRetrieval } from "../src/query/eval/metrics.js";
import {
  type EvalQuestion,
  type EvalReport,
  readEvalQuestions,
  runEval,
} from "../src/query/eval/run-eval.js";
import { GRAPH_RANKINGS, type GraphRanking, QUERY_MODES, type QueryMode } from "../src/query/options.js";
import type { KgragServices } from "../src/services.js";
import { bm25Titles } from "./support/dev-sets.js";

const DATA = join(import.meta.dirname, "../../shared/datasets/hotpotqa-100");
const KS = [5, 8, 10];
const BM25_REFERENCE = "BM25 over title + text (dataset README): all-gold@5/8/10 = 0.57 / 0.70 / 0.80";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const modesArg = args[args.indexOf("--modes") + 1];
  const modes = (
    args.includes("--modes") && modesArg ? modesArg.split(",") : [...QUERY_MODES]
  ) as QueryMode[];
  const rankingsArg = args[args.indexOf("--rankings") + 1];
  const rankings = (
    args.includes("--rankings") && rankingsArg ? rankingsArg.split(",") : [...GRAPH_RANKINGS]
  ) as GraphRanking[];
  const workspace = args.includes("--workspace")
    ? (args[args.indexOf("--workspace") + 1] ?? "")
    : join(tmpdir(), "kgrag-bench-hotpotqa");
  if (args.includes("--fresh") && existsSync(workspace)) await rm(workspace, { recursive: true });

  const kgrag = await createKgrag({ env: {}, config: { workspace } });
  try {
    const started = Date.now();
    const summary = await kgrag.index([join(DATA, "corpus.jsonl")]);
    console.log(
      `Workspace ${workspace}: ${summary.documents} documents, ${summary.chunks} chunks, ${summary.entities} entities, ` +
        `${summary.relationships} relationships (index step ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `extractor ${kgrag.components.extractor.kind}, embedder ${kgrag.services.embedder.kind})`,
    );
    const questions = await readEvalQuestions(join(DATA, "questions.jsonl"));
    console.log(`${questions.length} questions; ${BM25_REFERENCE}\n`);
    console.log(`bm25 (store full-text only): ${formatScores(await bm25Only(kgrag.services, questions))}\n`);
    for (const graphRanking of rankings) {
      const report = await runEval(kgrag.services, questions, {
        modes,
        ks: KS,
        graphRanking,
        answers: false,
      });
      console.log(`graph ranking: ${graphRanking}`);
      console.log(`${table(report)}\n`);
    }
  } finally {
    await kgrag.close();
  }
}

function table(report: EvalReport): string {
  const headers = [
    "mode",
    "type",
    ...KS.map((k) => `all-gold@${k}`),
    ...KS.map((k) => `recall@${k}`),
    "MRR",
    "ms",
  ];
  const rows: string[][] = [];
  for (const [mode, scores] of Object.entries(report.modes)) {
    for (const [type, s] of [["all", scores] as const, ...Object.entries(scores.byType)]) {
      rows.push([
        mode,
        `${type} (${s.questions})`,
        ...KS.map((k) => (s.allGold[k] ?? 0).toFixed(2)),
        ...KS.map((k) => (s.recall[k] ?? 0).toFixed(2)),
        s.mrr.toFixed(2),
        s.meanRetrievalMs.toFixed(1),
      ]);
    }
  }
  return formatTable(headers, rows);
}

/** The full-text index alone, passage level, as the dataset's BM25 reference is measured. */
async function bm25Only(services: KgragServices, questions: EvalQuestion[]): Promise<Record<number, number>> {
  const hits: Record<number, number[]> = Object.fromEntries(KS.map((k) => [k, []]));
  for (const q of questions) {
    const scores = scoreRetrieval(await bm25Titles(services, q.question), q.gold_titles, KS);
    for (const k of KS) hits[k]?.push(scores.allGold[k] ?? 0);
  }
  return Object.fromEntries(KS.map((k) => [k, mean(hits[k] ?? [])]));
}

function formatScores(scores: Record<number, number>): string {
  return KS.map((k) => `all-gold@${k} ${(scores[k] ?? 0).toFixed(2)}`).join(", ");
}

await main();
