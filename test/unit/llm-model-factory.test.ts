import { FakeListChatModel, SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigSchema, loadConfig } from "../../src/config.js";
import { ConfigError } from "../../src/config-error.js";
import type { LlmCache } from "../../src/llm/cached-chat.js";
import { STAGES } from "../../src/llm/chat-model.js";
import { createModels, fromLangChain } from "../../src/llm/model-factory.js";
import { stageSettings } from "../../src/llm/stage-models.js";
import { UsageTracker } from "../../src/llm/usage.js";
import type { LlmCacheEntry } from "../../src/types.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

function memoryCache(): LlmCache {
  const entries = new Map<string, LlmCacheEntry>();
  return {
    async getLlmCache(stage, model, hash) {
      return entries.get(`${stage}|${model}|${hash}`);
    },
    async putLlmCache(entry) {
      entries.set(`${entry.stage}|${entry.model}|${entry.promptHash}`, entry);
    },
  };
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ask = { stage: "answer" as const, messages: [{ role: "user" as const, content: "hi" }] };

describe("createModels", () => {
  it("is offline without an LLM and embeds with hashing", async () => {
    const config = ConfigSchema.parse({ hashingDimension: 128 });
    const { chat, embedder } = await createModels(config, memoryCache(), new UsageTracker());
    expect(chat).toBeNull();
    expect(embedder.kind).toBe("hashing");
    expect(embedder.dimension).toBe(128);
  });

  it("refuses an endpoint whose apiKeyEnv names an unset variable, naming it, before any request", async () => {
    server = await startScriptedOpenAI({ chat: () => ({ content: "hello" }) });
    const llm = (apiKeyEnv: string) => ({ model: "m", baseURL: server?.baseURL, apiKeyEnv });
    const embedding = (apiKeyEnv: string) => ({ ...llm(apiKeyEnv), model: "e", dimension: 8 });
    const open = (llmKey: string, embeddingKey: string) => {
      const overrides = { llm: llm(llmKey), embedding: embedding(embeddingKey) };
      return createModels(loadConfig({ MY_KEY: "k" }, overrides).config, memoryCache(), new UsageTracker());
    };
    const unset = /apiKeyEnv names the environment variable UNSET_KEY, which is not set/;
    await expect(open("UNSET_KEY", "MY_KEY")).rejects.toBeInstanceOf(ConfigError);
    await expect(open("UNSET_KEY", "MY_KEY")).rejects.toThrow(new RegExp(`^llm: ${unset.source}`));
    await expect(open("MY_KEY", "UNSET_KEY")).rejects.toThrow(new RegExp(`^embedding: ${unset.source}`));
    await expect(open("MY_KEY", "MY_KEY")).resolves.toBeDefined();
    expect(server.requests).toHaveLength(0);
  });

  it("builds a cached OpenAI chat model and a probed OpenAI embedder", async () => {
    server = await startScriptedOpenAI({ chat: () => ({ content: "hello" }), embeddingDimension: 20 });
    const endpoint = { baseURL: server.baseURL, apiKey: "k" };
    const config = ConfigSchema.parse({
      llm: { ...endpoint, model: "m" },
      embedding: { ...endpoint, model: "e" },
    });
    const usage = new UsageTracker();
    const { chat, embedder } = await createModels(config, memoryCache(), usage);
    expect(embedder).toMatchObject({ kind: "openai", dimension: 20, model: "e" });
    expect(chat?.model).toBe("m");
    await chat?.chat(ask);
    expect((await chat?.chat(ask))?.cached).toBe(true);
    expect(server.count("answer")).toBe(1);
    expect(usage.stages().answer).toMatchObject({ calls: 1, cachedCalls: 1 });
  });
});

describe("per-stage models", () => {
  it("send each stage to its own model with its temperature and output limit, the rest to the default", async () => {
    server = await startScriptedOpenAI({ chat: () => ({ content: "fine" }) });
    const config = ConfigSchema.parse({
      llm: { baseURL: server.baseURL, model: "small", temperature: 0.1 },
      stages: { answers: { model: "big", temperature: 0.7, maxOutputTokens: 99 } },
    });
    const { chat } = await createModels(config, memoryCache(), new UsageTracker());
    await chat?.chat(ask);
    await chat?.chat({ ...ask, stage: "keywords", temperature: 0 });
    const bodies = server.requests.map((r) => r.body);
    expect(bodies[0]).toMatchObject({ model: "big", temperature: 0.7, max_tokens: 99 });
    expect(bodies[1]).toMatchObject({ model: "small", temperature: 0.1 });
    expect(bodies[1]).not.toHaveProperty("max_tokens");
  });
});

describe("a model for every stage the config file names", () => {
  it("routes each request stage to the model of its `stages` key (extraction also serves gleaning)", async () => {
    server = await startScriptedOpenAI({ chat: () => ({ content: "fine" }) });
    const named = {
      extraction: "m-extraction",
      summaries: "m-summaries",
      reports: "m-reports",
      keywords: "m-keywords",
      answers: "m-answers",
      globalMap: "m-global-map",
      globalReduce: "m-global-reduce",
      text2cypher: "m-text2cypher",
      entityResolution: "m-resolution",
    };
    const config = ConfigSchema.parse({
      llm: { baseURL: server.baseURL, model: "default" },
      stages: Object.fromEntries(Object.entries(named).map(([key, model]) => [key, { model }])),
    });
    const { chat } = await createModels(config, memoryCache(), new UsageTracker());
    for (const stage of STAGES) await chat?.chat({ ...ask, stage });
    const modelByStage = Object.fromEntries(server.requests.map((r) => [r.stage, r.body.model]));
    expect(modelByStage).toEqual({
      extract: "m-extraction",
      glean: "m-extraction",
      summarize: "m-summaries",
      report: "m-reports",
      keywords: "m-keywords",
      answer: "m-answers",
      "global-map": "m-global-map",
      "global-reduce": "m-global-reduce",
      text2cypher: "m-text2cypher",
      resolve: "m-resolution",
    });
  });
});

describe("stageSettings", () => {
  it("lets another model keep none of the default's price and limits, and another host none of its key", () => {
    const config = ConfigSchema.parse({
      llm: { model: "small", apiKey: "secret", requestsPerMinute: 500, price: { inputPerMillion: 1 } },
      stages: {
        answers: { temperature: 0.5 },
        reports: { model: "big" },
        keywords: { baseURL: "http://127.0.0.1:11434/v1", model: "local" },
      },
    });
    expect(stageSettings(config, "answer")).toMatchObject({
      model: "small",
      requestsPerMinute: 500,
      apiKey: "secret",
    });
    const report = stageSettings(config, "report");
    expect(report).toMatchObject({ model: "big", apiKey: "secret" });
    expect(report?.price).toBeUndefined();
    expect(report?.requestsPerMinute).toBeUndefined();
    expect(stageSettings(config, "keywords")?.apiKey).toBeUndefined();
  });
});

describe("fromLangChain", () => {
  it("wraps LangChain objects with the cache and usage tracking", async () => {
    const usage = new UsageTracker();
    const { chat, embedder } = await fromLangChain(
      {
        chat: new FakeListChatModel({ responses: ["one", "two"] }),
        embeddings: new SyntheticEmbeddings({ vectorSize: 5 }),
      },
      ConfigSchema.parse({}),
      memoryCache(),
      usage,
    );
    expect(embedder).toMatchObject({ kind: "langchain", dimension: 5 });
    expect((await chat?.chat(ask))?.text).toBe("one");
    expect(await chat?.chat(ask)).toMatchObject({ text: "one", cached: true });
    expect(usage.totals()).toMatchObject({ calls: 1, cachedCalls: 1 });
  });

  it("falls back to the configured models for what is not given", async () => {
    const models = await fromLangChain({}, ConfigSchema.parse({}), memoryCache(), new UsageTracker());
    expect(models.chat).toBeNull();
    expect(models.embedder.kind).toBe("hashing");
  });
});
