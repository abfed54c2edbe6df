import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import type { ChatModel } from "../../src/llm/chat-model.js";
import {
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

/** Every reply costs the same, so costs are exact: 1,000 prompt and 100 completion tokens a call. */
const USAGE = { promptTokens: 1000, completionTokens: 100 };
const EXTRACTION = {
  entities: [{ name: "Mara Okafor", type: "person", description: "Founder of Lumen Robotics." }],
  relationships: [],
};
const KEYWORDS = { high_level_keywords: ["founding"], low_level_keywords: ["Lumen Robotics"] };

let server: ScriptedServer;
let workspace: string;
let kg: Kgrag;

beforeAll(async () => {
  server = await startScriptedOpenAI({
    chat: scriptByStage({
      extract: { content: JSON.stringify(EXTRACTION), usage: USAGE },
      glean: { content: JSON.stringify({ entities: [], relationships: [] }), usage: USAGE },
      keywords: { content: JSON.stringify(KEYWORDS), usage: USAGE },
      answer: { content: "Mara Okafor founded it [1].", usage: USAGE },
    }),
  });
  workspace = await mkdtemp(join(tmpdir(), "kgrag-usage-"));
  kg = await createKgrag({
    env: {},
    config: {
      workspace,
      llm: {
        baseURL: server.baseURL,
        model: "scripted",
        apiKey: "k",
        // $1 per million prompt tokens, $10 per million completion tokens: $0.002 a call.
        price: { inputPerMillion: 1, outputPerMillion: 10 },
      },
      stages: { answers: { price: { inputPerMillion: 2, outputPerMillion: 20 } } },
      community: { enabled: false },
      entityResolution: "off",
    },
  });
});

afterAll(async () => {
  await kg.close();
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

describe("usage and cost a library caller is told", () => {
  it("an index run's usage is that run's calls, priced, not the instance's totals so far", async () => {
    const first = await kg.index([{ id: "a", title: "A", text: "Mara Okafor founded Lumen Robotics." }]);
    expect(first.usage).toEqual({
      extract: { calls: 1, cachedCalls: 0, ...USAGE, cost: 0.002 },
      glean: { calls: 1, cachedCalls: 0, ...USAGE, cost: 0.002 },
    });
    expect(first.cost).toBeCloseTo(0.004, 10);

    const question = await kg.query("Who founded Lumen Robotics?", { mode: "local" });
    // keywords at the default price, the answer at the answers stage's own.
    expect(question.usage).toEqual({ llmCalls: 2, ...doubled(USAGE), cost: 0.002 + 0.004 });

    const again = await kg.index([{ id: "a", title: "A", text: "Mara Okafor founded Lumen Robotics." }]);
    expect(again.llmCalls).toBe(0);
    expect(again.usage).toEqual({});
    expect(again.cost).toBe(0);
  });
});

function doubled(usage: typeof USAGE) {
  return { promptTokens: usage.promptTokens * 2, completionTokens: usage.completionTokens * 2 };
}

describe("a chat model of the caller's own", () => {
  it("is written without kgrag's cache flag, and its calls are counted, then answered from the cache", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kgrag-own-chat-"));
    let calls = 0;
    // Typed as the README says: { model, chat(request) } returning text and usage, nothing more.
    const chat: ChatModel = {
      model: "own",
      chat: async (request) => {
        calls += 1;
        const text = request.stage === "keywords" ? JSON.stringify(KEYWORDS) : "Mara Okafor [1].";
        return { text, usage: USAGE };
      },
    };
    const own = await createKgrag({
      env: {},
      config: { workspace: dir },
      chat,
      embedder: new HashingEmbedder(),
    });
    try {
      await own.index([{ id: "a", title: "A", text: "Mara Okafor founded Lumen Robotics." }], {
        communities: false,
      });
      const asked = calls;
      const first = await own.query("Who founded Lumen Robotics?", { mode: "naive" });
      expect(first.usage).toMatchObject({ llmCalls: 1, ...USAGE });
      const again = await own.query("Who founded Lumen Robotics?", { mode: "naive" });
      expect(again.usage.llmCalls).toBe(0);
      expect(calls).toBe(asked + 1);
    } finally {
      await own.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
