import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/index.js";
import { plausibleReplies } from "../support/plausible-replies.js";
import {
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

const DOCUMENTS = [
  { id: "lumen", title: "Lumen", text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015." },
  { id: "tidewell", title: "Tidewell", text: "Tidewell Harbour bought twelve drones from Lumen Robotics." },
];

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
let workspace: string;
let server: ScriptedServer;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  workspace = await mkdtemp(join(tmpdir(), "kgrag-otel-"));
  server = await startScriptedOpenAI({
    chat: scriptByStage({
      // The first keywords call is refused once: its span counts the retry.
      keywords: [
        { status: 503, headers: { "retry-after-ms": "5" } },
        { content: '{"high_level_keywords": ["founding"], "low_level_keywords": ["Lumen Robotics"]}' },
      ],
      answer: { content: "Mara Okafor founded Lumen Robotics [1]." },
    }),
  });
});

afterAll(async () => {
  trace.disable();
  context.disable();
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
});

beforeEach(() => exporter.reset());

function named(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => s.name === name);
}

function childrenOf(spans: ReadableSpan[], parent: ReadableSpan): string[] {
  return spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId).map((s) => s.name);
}

/** Whether `span` runs inside `ancestor` (its parent, or its parent's parent, ...). */
function within(spans: ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let at = span.parentSpanContext?.spanId; at; at = byId.get(at)?.parentSpanContext?.spanId) {
    if (at === ancestor.spanContext().spanId) return true;
  }
  return false;
}

describe("OpenTelemetry spans (in-memory exporter)", () => {
  it("traces an index run: one span per stage under the run's span", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace } });
    try {
      await kg.index(DOCUMENTS);
    } finally {
      await kg.close();
    }
    const spans = exporter.getFinishedSpans();
    const [run] = named(spans, "kgrag.index");
    expect(run?.attributes).toMatchObject({ "kgrag.documents": 2, "kgrag.documents.added": 2 });
    // Stages that run side by side (chunk vectors with extraction, vectors and the search indexes
    // with communities and reports) end in either order: compared as a set.
    expect([...new Set(childrenOf(spans, run as ReadableSpan))].sort()).toEqual([
      "kgrag.index.chunk text index",
      "kgrag.index.cluster ahead",
      "kgrag.index.communities",
      "kgrag.index.embed",
      "kgrag.index.embed-chunks",
      "kgrag.index.extract",
      "kgrag.index.read graph",
      "kgrag.index.register",
      "kgrag.index.reports",
      "kgrag.index.resolve",
      "kgrag.index.search indexes",
      "kgrag.index.summarize",
    ]);
  });

  it("traces an index run's model calls under their stage, with the stage's own model and tokens", async () => {
    const llm = await startScriptedOpenAI({ chat: plausibleReplies });
    const dir = await mkdtemp(join(tmpdir(), "kgrag-otel-llm-"));
    const kg = await createKgrag({
      env: {},
      config: {
        workspace: dir,
        llm: { baseURL: llm.baseURL, model: "default-model", apiKey: "k" },
        stages: { extraction: { model: "extractor-model" } },
        extraction: { gleaning: 1 },
        community: { enabled: false },
      },
    });
    try {
      await kg.index(DOCUMENTS);
    } finally {
      await kg.close();
      await llm.close();
      await rm(dir, { recursive: true, force: true });
    }
    const spans = exporter.getFinishedSpans();
    const [extract] = named(spans, "kgrag.index.extract");
    const calls = named(spans, "kgrag.llm.chat").filter((c) => within(spans, c, extract as ReadableSpan));
    expect(calls.map((c) => c.attributes["kgrag.stage"]).sort()).toEqual([
      "extract",
      "extract",
      "glean",
      "glean",
    ]);
    for (const call of calls) {
      expect(call.attributes).toMatchObject({
        "gen_ai.request.model": "extractor-model",
        "kgrag.llm.cache_hit": false,
        "kgrag.llm.retries": 0,
      });
      expect(call.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
  });

  it("traces a query: keywords, retrieval, context and answer, each model call with tokens, retries and cache hits", async () => {
    const kg = await createKgrag({
      env: { KGRAG_LLM_MODEL: "scripted-model", KGRAG_LLM_BASE_URL: server.baseURL, KGRAG_LLM_API_KEY: "k" },
      config: { workspace },
    });
    try {
      await kg.query("Who founded Lumen Robotics?", { mode: "local" });
      const spans = exporter.getFinishedSpans();
      const [query] = named(spans, "kgrag.query");
      expect(query?.attributes["kgrag.query.mode"]).toBe("local");
      expect(childrenOf(spans, query as ReadableSpan)).toEqual([
        "kgrag.query.keywords",
        "kgrag.query.retrieve",
        "kgrag.query.context",
        "kgrag.query.answer",
      ]);
      const [keywords] = named(spans, "kgrag.query.keywords");
      expect(keywords?.attributes["kgrag.keywords.low"]).toEqual(["Lumen Robotics"]);
      const [retrieve] = named(spans, "kgrag.query.retrieve");
      expect(retrieve?.attributes["kgrag.chunks"]).toBeGreaterThan(0);

      const calls = named(spans, "kgrag.llm.chat");
      expect(calls.map((c) => c.attributes["kgrag.stage"])).toEqual(["keywords", "answer"]);
      const [keywordCall, answerCall] = calls;
      expect(keywordCall?.attributes).toMatchObject({
        "gen_ai.request.model": "scripted-model",
        "kgrag.llm.cache_hit": false,
        "kgrag.llm.retries": 1,
      });
      expect(keywordCall?.events.map((e) => e.name)).toEqual(["retry"]);
      expect(answerCall?.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(answerCall?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(childrenOf(spans, keywords as ReadableSpan)).toEqual(["kgrag.llm.chat"]);

      exporter.reset();
      await kg.query("Who founded Lumen Robotics?", { mode: "local" });
      const again = named(exporter.getFinishedSpans(), "kgrag.llm.chat");
      expect(again.map((c) => [c.attributes["kgrag.stage"], c.attributes["kgrag.llm.cache_hit"]])).toEqual([
        ["keywords", true],
        ["answer", true],
      ]);
    } finally {
      await kg.close();
    }
  });
});
