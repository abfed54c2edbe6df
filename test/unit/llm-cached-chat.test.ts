import { afterEach, describe, expect, it } from "vitest";
import { LlmSchema } from "../../src/config.js";
import { CachedChatModel, type LlmCache } from "../../src/llm/cached-chat.js";
import type { ChatRequest } from "../../src/llm/chat-model.js";
import { OpenAIChatModel } from "../../src/llm/openai-chat.js";
import { UsageTracker } from "../../src/llm/usage.js";
import type { LlmCacheEntry } from "../../src/types.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

/** In-memory stand-in for the workspace LLM cache table. */
function memoryCache(): LlmCache & { entries: Map<string, LlmCacheEntry> } {
  const entries = new Map<string, LlmCacheEntry>();
  const key = (stage: string, model: string, hash: string) => `${stage}|${model}|${hash}`;
  return {
    entries,
    async getLlmCache(stage, model, promptHash) {
      return entries.get(key(stage, model, promptHash));
    },
    async putLlmCache(entry) {
      entries.set(key(entry.stage, entry.model, entry.promptHash), entry);
    },
  };
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: string[], cutOff: (call: number) => boolean = () => false, reasoning?: string) {
  let call = 0;
  server = await startScriptedOpenAI({
    chat: () => {
      const index = call++;
      const content = replies[Math.min(index, replies.length - 1)]!;
      return cutOff(index) ? { truncate: true, content } : { content, reasoning };
    },
  });
  const config = { ...LlmSchema.parse({ baseURL: server.baseURL, apiKey: "test" }), model: "scripted" };
  const usage = new UsageTracker();
  const cache = memoryCache();
  const model = new CachedChatModel(new OpenAIChatModel(config, { baseDelayMs: 5 }), cache, usage);
  return { server, model, usage, cache };
}

const request: ChatRequest = {
  stage: "extract",
  messages: [
    { role: "system", content: "extract entities" },
    { role: "user", content: "Ada Lovelace met Charles Babbage." },
  ],
  temperature: 0,
};

describe("CachedChatModel", () => {
  it("answers a repeated request from the cache without an HTTP call", async () => {
    const { server, model, usage } = await setup(['{"entities":[]}']);
    const first = await model.chat(request);
    const second = await model.chat({ ...request, messages: [...request.messages] });
    expect(server.count("extract")).toBe(1);
    expect(first.cached).toBe(false);
    expect(second).toEqual({ text: first.text, usage: first.usage, cached: true });
    expect(usage.stages().extract).toEqual({
      calls: 1,
      cachedCalls: 1,
      promptTokens: first.usage.promptTokens,
      completionTokens: first.usage.completionTokens,
    });
  });

  it("keys on stage, messages and sampling settings", async () => {
    const { server, model } = await setup(["a"]);
    await model.chat(request);
    await model.chat({ ...request, stage: "glean" });
    await model.chat({ ...request, temperature: 0.7 });
    await model.chat({ ...request, messages: [{ role: "user", content: "other text" }] });
    await model.chat({ ...request, jsonSchema: { name: "x", schema: { type: "object" } } });
    expect(server.requests).toHaveLength(5);
  });

  it("replays a cached answer to onToken in one piece", async () => {
    const { model } = await setup(["streamed answer here"]);
    await model.chat(request);
    const tokens: string[] = [];
    const hit = await model.chat({ ...request, onToken: (t) => tokens.push(t) });
    expect(hit.cached).toBe(true);
    expect(tokens).toEqual(["streamed answer here"]);
  });

  it("neither stores nor replays an answer the caller rejects", async () => {
    const { server, model, cache } = await setup(['{"entities": [', '{"entities":[]}']);
    const parses = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    const bad = await model.chat({ ...request, acceptAnswer: parses });
    expect(bad.text).toBe('{"entities": [');
    expect(cache.entries.size).toBe(0);
    const good = await model.chat({ ...request, acceptAnswer: parses });
    expect(good.text).toBe('{"entities":[]}');
    const replay = await model.chat({ ...request, acceptAnswer: parses });
    expect(replay.cached).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it("does not store an answer cut off at the output limit, even one the caller accepts", async () => {
    const { server, model, cache } = await setup(
      ['{"entities":[{"name":"Ada Lovelace"}]}'],
      (call) => call === 0,
    );
    const cut = await model.chat({ ...request, acceptAnswer: () => true });
    expect(cut.truncated).toBe(true);
    expect(cache.entries.size).toBe(0);
    const whole = await model.chat({ ...request, acceptAnswer: () => true });
    expect(whole).toMatchObject({ text: '{"entities":[{"name":"Ada Lovelace"}]}', cached: false });
    expect(cache.entries.size).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it("asks again when a cached answer is rejected by the current caller", async () => {
    const { server, model } = await setup(["not json", '{"ok":1}']);
    await model.chat(request);
    const answer = await model.chat({ ...request, acceptAnswer: (t) => t.startsWith("{") });
    expect(answer).toMatchObject({ text: '{"ok":1}', cached: false });
    expect(server.requests).toHaveLength(2);
    expect((await model.chat(request)).text).toBe('{"ok":1}');
  });

  it("drops reasoning, in <think> blocks or a reasoning_content field, for every stage and both transports", async () => {
    const thinking = 'I think {"entities": ["wrong"]} fits.';
    const { model, cache } = await setup(
      [`<think>${thinking}</think>\n\nParis is the capital.`],
      () => false,
      thinking,
    );
    for (const stage of ["answer", "summarize"] as const) {
      const plain = await model.chat({ ...request, stage });
      expect(plain.text).toBe("Paris is the capital.");
      const tokens: string[] = [];
      const streamed = await model.chat({
        ...request,
        stage,
        temperature: 0.5,
        onToken: (t) => tokens.push(t),
      });
      expect(streamed.text).toBe("Paris is the capital.");
      expect(tokens.join("")).toBe("Paris is the capital.");
    }
    expect([...cache.entries.values()].every((e) => e.response === "Paris is the capital.")).toBe(true);

    // A server that spent the whole answer on reasoning sends no content: that is an empty answer.
    await server?.close();
    const { model: silent } = await setup([""], () => false, '{"entities": [{"name": "Ada"}]}');
    expect((await silent.chat(request)).text).toBe("");
  });

  it("holds back a reasoning block streamed a character at a time, tag split across deltas", async () => {
    const reply = "<think>maybe <b>x</b></think>\n\nThe answer <is> here.";
    const inner = {
      model: "char-stream",
      async chat(req: ChatRequest) {
        for (const ch of reply) req.onToken?.(ch);
        return { text: reply, usage: { promptTokens: 1, completionTokens: 1 }, cached: false };
      },
    };
    const model = new CachedChatModel(inner, memoryCache(), new UsageTracker());
    const tokens: string[] = [];
    const answer = await model.chat({ ...request, stage: "answer", onToken: (t) => tokens.push(t) });
    expect(answer.text).toBe("The answer <is> here.");
    expect(tokens.join("")).toBe("The answer <is> here.");
  });

  it("streams the whole answer after reasoning ended by a closing tag alone", async () => {
    const reply = "The user asks who wrote it, a long thought.\n</think>\n\nAda did.";
    const inner = {
      model: "char-stream",
      async chat(req: ChatRequest) {
        for (const ch of reply) req.onToken?.(ch);
        return { text: reply, usage: { promptTokens: 1, completionTokens: 1 }, cached: false };
      },
    };
    const model = new CachedChatModel(inner, memoryCache(), new UsageTracker());
    const tokens: string[] = [];
    const answer = await model.chat({ ...request, stage: "answer", onToken: (t) => tokens.push(t) });
    expect(answer.text).toBe("Ada did.");
    // The reasoning could not be told from an answer before its tag came; the answer follows whole.
    expect(tokens.join("")).toBe("The user asks who wrote it, a long thought.\nAda did.");
  });
});
