/**
 * The report step of a community hierarchy of several levels against a model and an embedder that
 * each answer after a fixed latency, with the model's concurrency: how close does the step come to
 * the bound (report and embedding requests x latency / concurrency)? A level barrier leaves slots
 * idle while a level's last reports finish; a report that waits only for its own children does not.
 * Graphs: seeded block models (test/support/community-graphs.ts), clustered as an index run would.
 * `--module` runs another build of the step (e.g. a worktree of an earlier commit) on the same graphs.
 * Run: npx tsx bench/report-levels.ts [--latency 100] [--concurrency 4] [--nodes 240,1200] [--runs 2]
 *   [--module path/to/src/pipeline/create-community-reports.ts]
 */

import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ExtractiveReportWriter } from "../src/community/extractive-report-writer.js";
import type { ReportContext } from "../src/community/report-context.js";
import type { ReportWriter } from "../src/community/report-writer.js";
import type { Embedder } from "../src/embedding/embedder.js";
import { createCommunities } from "../src/pipeline/create-communities.js";
import type * as ReportStep from "../src/pipeline/create-community-reports.js";
import { CommunityFakeStore, communityServices, loadGraph } from "../test/support/community-fake-store.js";
import { blockModelGraph } from "../test/support/community-graphs.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? String(process.argv[at + 1]) : fallback;
}

const LATENCY_MS = Number(option("--latency", "100"));
const CONCURRENCY = Number(option("--concurrency", "4"));
const NODES = option("--nodes", "240,1200").split(",").map(Number);
const RUNS = Number(option("--runs", "2"));
const MODULE = option("--module", "");

const step: typeof ReportStep = MODULE
  ? await import(pathToFileURL(resolve(MODULE)).href)
  : await import("../src/pipeline/create-community-reports.js");

/** An LLM-kind writer whose every report takes the latency (the text is an extractive report). */
function slowWriter(): ReportWriter {
  const inner = new ExtractiveReportWriter();
  return {
    kind: "llm",
    write: async (context: ReportContext) => {
      await sleep(LATENCY_MS);
      return inner.write(context);
    },
  };
}

/** Counts requests; each takes the latency. */
function slowEmbedder(inner: Embedder, counter: { requests: number }): Embedder {
  return Object.assign(Object.create(inner) as Embedder, {
    embed: async (texts: string[]) => {
      counter.requests += 1;
      await sleep(LATENCY_MS);
      return inner.embed(texts);
    },
  });
}

async function measure(nodes: number) {
  const store = new CommunityFakeStore();
  loadGraph(
    store,
    blockModelGraph({ nodes, edges: Math.round(nodes * 2.3), blocks: nodes / 20, mixing: 0.85, seed: 4 }),
  );
  const services = communityServices(store, null, {
    community: { maxClusterSize: 6, reportContextTokens: 256 },
    llm: { concurrency: CONCURRENCY },
  });
  await createCommunities(services);
  const embeddings = { requests: 0 };
  services.embedder = slowEmbedder(services.embedder, embeddings);
  const started = performance.now();
  await step.createCommunityReports(services, slowWriter());
  const elapsedMs = Math.round(performance.now() - started);
  const reports = store.communities.length;
  const boundMs = ((reports + embeddings.requests) * LATENCY_MS) / CONCURRENCY;
  return {
    nodes,
    communities: reports,
    levels: new Set(store.communities.map((c) => c.level)).size,
    embeddingRequests: embeddings.requests,
    boundMs,
    elapsedMs,
    ratio: Number((elapsedMs / boundMs).toFixed(2)),
  };
}

// Discarded: the first run also loads the tokenizer and compiles the step.
await measure(60);
for (let run = 0; run < RUNS; run += 1) {
  for (const nodes of NODES) console.log(JSON.stringify({ run, ...(await measure(nodes)) }));
}
