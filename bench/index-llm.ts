/**
 * Indexing through the scripted OpenAI-compatible server at a fixed latency, compared with the
 * bound (chat + embedding requests) x latency / concurrency. Run: npx tsx bench/index-llm.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKgrag } from "../src/kgrag.js";
import type { SourceDocument } from "../src/types.js";
import { lastUserMessage, startScriptedOpenAI } from "../test/support/scripted-openai-server.js";

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 100);
const DOCS = Number(process.env.BENCH_DOCS ?? 120);
const CONCURRENCY = 4;

function fakeExtraction(text: string): string {
  const names = [...new Set(text.match(/Person\d+|Place\d+/g) ?? [])];
  return JSON.stringify({
    entities: names.map((name) => ({
      name,
      type: "concept",
      description: `${name} appears in: ${text.slice(0, 60)}`,
    })),
    relationships: names.slice(1).map((name) => ({
      source: names[0],
      target: name,
      description: `${names[0]} and ${name} meet.`,
      keywords: ["meeting"],
      strength: 5,
    })),
  });
}

const server = await startScriptedOpenAI({
  latencyMs: LATENCY_MS,
  chat: (call) => {
    if (call.stage === "extract") return { content: fakeExtraction(lastUserMessage(call)) };
    if (call.stage === "summarize") return { content: "A short summary." };
    return { content: JSON.stringify({ entities: [], relationships: [] }) };
  },
});
const root = mkdtempSync(join(tmpdir(), "kgrag-bench-llm-"));
const docs: SourceDocument[] = Array.from({ length: DOCS }, (_, i) => ({
  id: `d${i}`,
  title: `Doc ${i}`,
  path: null,
  metadata: {},
  text: `Person${i % 37} travelled to Place${i % 11} with Person${(i * 7) % 37}. It was document ${i}.`,
}));
const kgrag = await createKgrag({
  env: {
    KGRAG_LLM_BASE_URL: server.baseURL,
    KGRAG_LLM_MODEL: "bench",
    KGRAG_LLM_CONCURRENCY: String(CONCURRENCY),
    KGRAG_EMBEDDING_MODEL: "bench-embed",
    KGRAG_EMBEDDING_DIM: "64",
  },
  config: { workspace: join(root, "ws"), community: { enabled: false } },
});
const started = performance.now();
const summary = await kgrag.index(docs);
const elapsed = performance.now() - started;
await kgrag.close();
await server.close();
rmSync(root, { recursive: true, force: true });

const counts = server.countByStage();
const chat = Object.entries(counts)
  .filter(([stage]) => stage !== "embed")
  .reduce((n, [, c]) => n + c, 0);
const embed = counts.embed ?? 0;
const bound = ((chat + embed) * LATENCY_MS) / CONCURRENCY;
console.log(
  JSON.stringify(
    {
      docs: DOCS,
      latencyMs: LATENCY_MS,
      concurrency: CONCURRENCY,
      requests: counts,
      boundMs: Math.round(bound),
      elapsedMs: Math.round(elapsed),
      overBound: `${(((elapsed - bound) / bound) * 100).toFixed(1)}%`,
      entities: summary.entities,
      relationships: summary.relationships,
    },
    null,
    2,
  ),
);
