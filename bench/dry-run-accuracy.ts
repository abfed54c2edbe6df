/**
 * `kgrag index --dry-run` against a real run: the estimate for HotpotQA passages
 * (../shared/datasets/hotpotqa-100, BENCH_DOCS=200 after BENCH_SKIP=0), then the same documents indexed
 * through a scripted OpenAI-compatible server on 127.0.0.1 whose answers are model-sized
 * (test/support/plausible-replies.ts). Prints estimated and actual calls and tokens per stage, their
 * ratios, and the same as a markdown table for the README (embedding: requests, tokens, texts).
 * BENCH_UPDATE=N measures an update instead: the DOCS passages are indexed first, then the next N
 * are estimated against that workspace and indexed (reports: only the communities they change,
 * warm start); `reportsFromScratch` is the report count estimated without the workspace.
 * BENCH_CHANGED=K adds to that update the first K of the DOCS passages with changed content (cut
 * to their first half): the run removes their old version before extracting them again.
 * Run: npx tsx bench/dry-run-accuracy.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../src/config.js";
import { estimateIndexing, estimateUpdate } from "../src/estimate/dry-run.js";
import { parseSourceDocuments } from "../src/ingest/source-input.js";
import { createKgrag } from "../src/kgrag.js";
import { countTokens } from "../src/util/tokens.js";
import { plausibleReplies } from "../test/support/plausible-replies.js";
import { startScriptedOpenAI } from "../test/support/scripted-openai-server.js";

const DOCS = Number(process.env.BENCH_DOCS ?? 200);
/** Passages skipped first: BENCH_SKIP=400 measures on passages the estimate defaults were not set from. */
const SKIP = Number(process.env.BENCH_SKIP ?? 0);
/** Passages of the measured update after the DOCS passages indexed first (0: the DOCS from scratch). */
const UPDATE = Number(process.env.BENCH_UPDATE ?? 0);
/** Passages indexed first that the update brings again with changed content. */
const CHANGED = Number(process.env.BENCH_CHANGED ?? 0);
// ../shared beside the clone, or beside the worktrees folder when run from a worktree.
const corpus = ["../../shared", "../../../shared"]
  .map((up) => join(import.meta.dirname, up, "datasets/hotpotqa-100/corpus.jsonl"))
  .find((path) => existsSync(path)) as string;
const lines = readFileSync(corpus, "utf8")
  .split("\n")
  .filter(Boolean)
  .slice(SKIP, SKIP + DOCS + UPDATE);
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
/** A passage's first half, cut after a sentence when there is one: a change that drops records. */
function firstHalf(text: string): string {
  const sentenceEnd = text.lastIndexOf(". ", text.length / 2);
  return sentenceEnd > 0 ? text.slice(0, sentenceEnd + 1) : text.slice(0, Math.ceil(text.length / 2));
}

const isUpdate = UPDATE > 0 || CHANGED > 0;
const changed = inputs.slice(0, CHANGED).map((input) => ({ ...input, text: firstHalf(input.text) }));
const measured = isUpdate ? [...changed, ...inputs.slice(DOCS)] : inputs;
if (isUpdate) {
  const first = await createKgrag({ env, config: { workspace: join(root, "ws") } });
  await first.index(inputs.slice(0, DOCS));
  await first.close();
}
const requestsBefore = server.requests.length;
const estimateStarted = performance.now();
const estimate = await estimateUpdate(config, parseSourceDocuments(measured));
const estimateSeconds = (performance.now() - estimateStarted) / 1000;
const reportsFromScratch = isUpdate
  ? (await estimateIndexing(config, parseSourceDocuments(measured))).stages.report?.calls
  : undefined;

const kgrag = await createKgrag({ env, config: { workspace: join(root, "ws") } });
const started = performance.now();
const summary = await kgrag.index(measured);
const seconds = (performance.now() - started) / 1000;
await kgrag.close();
await server.close();
rmSync(root, { recursive: true, force: true });

interface Row {
  stage: string;
  calls: [number, number];
  input: [number, number];
  output: [number, number];
}

const ratio = (estimated: number, actual: number) => (actual ? estimated / actual : estimated ? Infinity : 1);
const chatRows: Row[] = Object.entries(estimate.stages).map(([stage, e]) => {
  const actual = summary.usage[stage] ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
  return {
    stage,
    calls: [e?.calls ?? 0, actual.calls],
    input: [e?.inputTokens ?? 0, actual.promptTokens],
    output: [e?.outputTokens ?? 0, actual.completionTokens],
  };
});
// What the embedding endpoint received: requests, texts and their tokens, as the estimate counts them.
const measuredRequests = server.requests.slice(requestsBefore);
const measuredCalls: Record<string, number> = {};
for (const r of measuredRequests) measuredCalls[r.stage] = (measuredCalls[r.stage] ?? 0) + 1;
const embeddingRequests = measuredRequests.filter((r) => r.path === "/v1/embeddings");
const embeddedTexts = embeddingRequests.flatMap((r) => (r.body.input as string[] | string | undefined) ?? []);
const embeddingRow: Row = {
  stage: "embedding",
  calls: [estimate.embedding.calls, embeddingRequests.length],
  input: [estimate.embedding.tokens, embeddedTexts.reduce((sum, t) => sum + countTokens(t), 0)],
  output: [estimate.embedding.inputs, embeddedTexts.length],
};
const sum = (rows: Row[], pick: (row: Row) => [number, number]): [number, number] => [
  rows.reduce((t, r) => t + pick(r)[0], 0),
  rows.reduce((t, r) => t + pick(r)[1], 0),
];
const totalRow: Row = {
  stage: "total (chat)",
  calls: sum(chatRows, (r) => r.calls),
  input: sum(chatRows, (r) => r.input),
  output: sum(chatRows, (r) => r.output),
};

const number = (n: number) => n.toLocaleString("en-US");
const cell = ([estimated, actual]: [number, number]) =>
  `${number(estimated)} / ${number(actual)} (${ratio(estimated, actual).toFixed(2)})`;
const table = [
  `| ${isUpdate ? `${UPDATE} passages and ${CHANGED} changed after ${DOCS}` : `${DOCS} passages`} (skip ${SKIP}) | calls | input tokens | output tokens (embedding: texts) |`,
  "| --- | --- | --- | --- |",
  ...[...chatRows, totalRow, embeddingRow].map(
    (r) => `| ${r.stage} | ${cell(r.calls)} | ${cell(r.input)} | ${cell(r.output)} |`,
  ),
].join("\n");
const worst = Math.max(
  ...[...chatRows, embeddingRow].flatMap((r) =>
    [r.calls, r.input, r.output].filter(([, a]) => a > 0).map(([e, a]) => Math.abs(e / a - 1)),
  ),
);

console.log(
  JSON.stringify(
    {
      docs: DOCS,
      skipped: SKIP,
      ...(isUpdate ? { update: UPDATE, changed: CHANGED, reportsFromScratch } : {}),
      chunks: estimate.chunks,
      estimateSeconds: Number(estimateSeconds.toFixed(1)),
      runSeconds: Number(seconds.toFixed(1)),
      serverCalls: measuredCalls,
      // The run's own account of its embedding requests (IndexSummary.embedding), beside the estimate's split.
      embedding: { summary: summary.embedding, estimatedByStage: estimate.embedding.stages },
      graph: {
        estimated: estimate.assumed,
        actual: { entities: summary.entities, relationships: summary.relationships },
      },
      ratios: Object.fromEntries(
        [...chatRows, totalRow, embeddingRow].map((r) => [
          r.stage,
          {
            calls: Number(ratio(...r.calls).toFixed(3)),
            input: Number(ratio(...r.input).toFixed(3)),
            output: Number(ratio(...r.output).toFixed(3)),
          },
        ]),
      ),
      worstDeviation: Number(worst.toFixed(3)),
    },
    null,
    1,
  ),
);
console.log(`\nEstimated / actual (ratio):\n\n${table}`);
