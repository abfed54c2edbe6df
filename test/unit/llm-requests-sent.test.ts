import { afterEach, describe, expect, it } from "vitest";
import { LlmSchema } from "../../src/config.js";
import type { ChatRequest } from "../../src/llm/chat-model.js";
import { OpenAIChatModel } from "../../src/llm/openai-chat.js";
import { stageOf, stageRequestsSent } from "../../src/llm/requests-sent.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function ask(stage: ChatRequest["stage"]): ChatRequest {
  return { stage, messages: [{ role: "user", content: `question for ${stage}` }] };
}

/** Resolves once the server has received `count` requests (replies are held meanwhile). */
async function received(count: number): Promise<void> {
  while ((server?.requests.length ?? 0) < count) await new Promise((resolve) => setImmediate(resolve));
}

describe("stageRequestsSent", () => {
  it("resolves once that many requests of the stage are written, before any reply, and not for other stages", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await startScriptedOpenAI({
      chat: async () => {
        await held;
        return { content: "{}" };
      },
    });
    const parsed = LlmSchema.parse({ baseURL: server.baseURL, apiKey: "test", model: "scripted" });
    const model = new OpenAIChatModel({ ...parsed, model: "scripted", concurrency: 4 });
    let sent = false;
    const waited = new AbortController();
    const twoExtractions = stageRequestsSent("extract", 2, waited.signal).then(() => {
      sent = true;
    });
    const calls = [model.chat(ask("report")), model.chat(ask("extract"))];
    await received(2);
    expect(sent).toBe(false);
    calls.push(model.chat(ask("extract")));
    await received(3);
    await twoExtractions;
    // Every reply is still held: the promise told that the requests went out, not that they came back.
    expect(sent).toBe(true);
    expect(server.requests.every((r) => r.answeredAt === undefined)).toBe(true);
    release();
    await Promise.all(calls);
  });

  it("resolves at once when its signal aborts", async () => {
    const waited = new AbortController();
    const never = stageRequestsSent("extract", 1, waited.signal);
    waited.abort();
    await expect(never).resolves.toBeUndefined();
  });

  it("reads the stage header from undici's header list or raw header lines", () => {
    expect(stageOf({ request: { headers: ["content-type", "x", "X-Kgrag-Stage", "glean"] } })).toBe("glean");
    expect(stageOf({ request: { headers: "accept: */*\r\nx-kgrag-stage: extract\r\n" } })).toBe("extract");
    expect(stageOf({ request: { headers: ["accept", "*/*"] } })).toBeUndefined();
    expect(stageOf({})).toBeUndefined();
  });
});
