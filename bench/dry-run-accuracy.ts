/**
 * `kgrag index --dry-run` against a real run: the estimate for HotpotQA passages
 * (../shared/datasets/hotpotqa-100, BENCH_DOCS=200 after BENCH_SKIP=0), then the same documents indexed
 * through a scripted OpenAI-compatible server on 127.0.0.1 whose answers are model-sized
 * (test/support/plausible-replies.ts). Prints estimated and actual calls and tokens per stage.
 * Run: npx tsx bench/dry-run-accuracy.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../src/config.js";
import { estimateIndexing } from "../src/estimate/dry-run.js";
import { parseSourceDocuments } from "../src/ingest/source-input.js";
import { createKgrag } from "../src/kgrag.js";
import { plausibleReplies } from "../test/support/plausible-replies.js";
import { startScriptedOpenAI } from "../test/support/scripted-openai-server.js";

const DOCS = Number(process.env.BENCH_DOCS ?? 200);
/** Passages skipped first: BENCH_SKIP=400 measures on passages the estimate defaults were not set from. */
const SKIP = Number(process.env.BENCH_SKIP ?? 0);
// ../shared beside the clone, or beside the worktrees folder when run from a worktree.
const corpus = ["../../shared", "../../../shared"]
  .map((up) => join(import.meta.dirname, up, "datasets/hotpotqa-100/corpus.jsonl"))
  .find((path) => existsSync(path)) as string;
const lines = readFileSync(corpus, "utf8")
  .split("\n")
  .filter(Boolean)
  .slice(SKIP, SKIP + DOCS);
const inputs = lines.map((line) => {
  const { id, title, text } = JSON.parse(line) as { id: string; title: string; text: string };
  return { id, title, text };
});

const server = await startScriptedOpenAI({ chat: plausibleReplies });
const root = mkdtempSync(join(tmpdir(), "kgrag-bench-dry-run-"));
const env = {
  KGRAG_LLM_BASE_URL: server.baseURL,
  KGRAG_LLM_MODEL: "bench",
  KGRAG_LLM_CONCURRENCY: "8",
  KGRAG_EMBEDDING_MODEL: "bench-embed",
  KGRAG_EMBEDDING_DIM: "64",
};
const config = configFromEnv(env, { workspace: join(root, "ws") });
const estimate = estimateIndexing(config, parseSourceDocuments(inputs));

const kgrag = await createKgrag({ env, config: { workspace: join(root, "ws") } });
const started = performance.now();
const summary = await kgrag.index(inputs);
const seconds = (performance.now() - started) / 1000;
await kgrag.close();
await server.close();
rmSync(root, { recursive: true, force: true });

const ratio = (estimated: number, actual: number) =>
  actual ? Number((estimated / actual).toFixed(3)) : null;
const stages = Object.fromEntries(
  Object.entries(estimate.stages).map(([stage, e]) => {
    const actual = summary.usage[stage] ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
    return [
      stage,
      {
        calls: [e?.calls, actual.calls],
        input: [e?.inputTokens, actual.promptTokens],
        output: [e?.outputTokens, actual.completionTokens],
        inputRatio: ratio(e?.inputTokens ?? 0, actual.promptTokens),
        outputRatio: ratio(e?.outputTokens ?? 0, actual.completionTokens),
      },
    ];
  }),
);
const actualTotals = Object.values(summary.usage).reduce(
  (t, s) => ({
    calls: t.calls + (s?.calls ?? 0),
    input: t.input + (s?.promptTokens ?? 0),
    output: t.output + (s?.completionTokens ?? 0),
  }),
  { calls: 0, input: 0, output: 0 },
);
console.log(
  JSON.stringify(
    {
      docs: DOCS,
      skipped: SKIP,
      chunks: estimate.chunks,
      runSeconds: Number(seconds.toFixed(1)),
      serverCalls: server.countByStage(),
      stages,
      totals: {
        calls: [estimate.totals.calls, actualTotals.calls],
        input: [estimate.totals.inputTokens, actualTotals.input],
        output: [estimate.totals.outputTokens, actualTotals.output],
        callsRatio: ratio(estimate.totals.calls, actualTotals.calls),
        inputRatio: ratio(estimate.totals.inputTokens, actualTotals.input),
        outputRatio: ratio(estimate.totals.outputTokens, actualTotals.output),
      },
      embedding: {
        estimatedInputs: estimate.embedding.inputs,
        assumed: estimate.assumed,
        actual: { entities: summary.entities, relationships: summary.relationships },
      },
    },
    null,
    1,
  ),
);
