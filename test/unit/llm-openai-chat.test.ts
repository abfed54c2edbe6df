import { afterEach, describe, expect, it } from "vitest";
import { LlmSchema } from "../../src/config.js";
import type { ChatRequest } from "../../src/llm/chat-model.js";
import { OpenAIChatModel } from "../../src/llm/openai-chat.js";
import { RequestTimeoutError, RetriesExhaustedError } from "../../src/llm/retry.js";
import {
  type ChatHandler,
  type ScriptedServer,
  type ScriptedServerOptions,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20 };
const SCHEMA = { name: "answer", schema: { type: "object", properties: { ok: { type: "boolean" } } } };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options: ScriptedServerOptions, llm: Record<string, unknown> = {}) {
  server = await startScriptedOpenAI(options);
  const parsed = LlmSchema.parse({ baseURL: server.baseURL, apiKey: "test", model: "scripted", ...llm });
  const config = { ...parsed, model: parsed.model ?? "scripted" };
  return { server, model: new OpenAIChatModel(config, FAST_RETRY) };
}

function ask(stage: ChatRequest["stage"], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { stage, messages: [{ role: "user", content: `question for ${stage}` }], ...extra };
}

describe("OpenAIChatModel against the scripted server", () => {
  it("sends the stage header and the json_schema response format", async () => {
    const { server, model } = await setup({ chat: () => ({ content: '{"ok":true}' }) });
    const answer = await model.chat(ask("extract", { jsonSchema: SCHEMA, maxTokens: 50, temperature: 0 }));
    expect(answer.text).toBe('{"ok":true}');
    expect(answer.cached).toBe(false);
    expect(answer.usage.promptTokens).toBeGreaterThan(0);
    const [request] = server.requests;
    expect(request?.stage).toBe("extract");
    expect(request?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "answer", schema: SCHEMA.schema, strict: false },
    });
    expect(request?.body.max_tokens).toBe(50);
  });

  it("honours Retry-After in seconds on a 429, then succeeds", async () => {
    const { server, model } = await setup({
      chat: scriptByStage({
        answer: [{ status: 429, headers: { "retry-after": "1" } }, { content: "done" }],
      }),
    });
    expect((await model.chat(ask("answer"))).text).toBe("done");
    const [first, second] = server.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it("honours retry-after-ms on a 503 and retries a 500", async () => {
    const { server, model } = await setup({
      chat: scriptByStage({
        report: [
          { status: 503, headers: { "retry-after-ms": "150" } },
          { status: 500 },
          { content: "report" },
        ],
      }),
    });
    expect((await model.chat(ask("report"))).text).toBe("report");
    expect(server.count("report")).toBe(3);
    const [first, second] = server.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(150);
  });

  it("times out a hung request and retries it", async () => {
    const { server, model } = await setup(
      { chat: scriptByStage({ glean: [{ hang: true }, { content: "after hang" }] }) },
      { timeoutMs: 400 },
    );
    // The hung request never answers: the second one is only sent once the first timed out.
    expect((await model.chat(ask("glean"))).text).toBe("after hang");
    expect(server.count("glean")).toBe(2);
  });

  it("retries a request whose connection was dropped without an answer, streamed or not", async () => {
    const { server, model } = await setup({
      chat: scriptByStage({
        glean: [{ reset: true }, { content: "after reset" }],
        answer: [{ reset: true }, { content: "streamed after reset" }],
      }),
    });
    expect((await model.chat(ask("glean"))).text).toBe("after reset");
    expect((await model.chat(ask("answer", { onToken: () => {} }))).text).toBe("streamed after reset");
    expect(server.countByStage()).toMatchObject({ glean: 2, answer: 2 });
  });

  it("times out an answer that stalls after its headers, streamed or not", async () => {
    const { server, model } = await setup(
      {
        chat: scriptByStage({
          answer: [{ stall: true }, { content: "recovered" }, { stall: true }, { content: "recovered" }],
        }),
      },
      { timeoutMs: 400 },
    );
    expect((await model.chat(ask("answer"))).text).toBe("recovered");
    expect((await model.chat(ask("answer", { onToken: () => {} }))).text).toBe("recovered");
    expect(server.count("answer")).toBe(4);
  });

  it("gives up after maxRetries with an error naming stage, status and attempts", async () => {
    const { server, model } = await setup({ chat: () => ({ status: 500 }) }, { maxRetries: 2 });
    const error = await model.chat(ask("summarize")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as Error).message).toMatch(/stage summarize.*after 3 attempts.*HTTP 500/);
    expect(server.count("summarize")).toBe(3);
  });

  it("says the endpoint's status once in the error", async () => {
    const { model } = await setup(
      { chat: () => ({ status: 500, body: { error: { message: "boom" } } }) },
      { maxRetries: 1 },
    );
    const error = await model.chat(ask("summarize")).catch((e: unknown) => e);
    expect((error as Error).message).toContain("last error: HTTP 500: boom.");
  });

  it("says the request timed out when every attempt did, with the timeout as the cause", async () => {
    const { server, model } = await setup(
      { chat: () => ({ hang: true }) },
      { timeoutMs: 300, maxRetries: 1 },
    );
    const error = await model.chat(ask("extract")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as Error).message).toMatch(/after 2 attempts; last error: timed out after 300 ms/);
    expect((error as Error).cause).toBeInstanceOf(RequestTimeoutError);
    expect(((error as Error).cause as Error).message).toMatch(/stage extract.* timed out after 300 ms/);
    expect(server.count("extract")).toBe(2);
  });

  it("does not retry a plain bad request", async () => {
    const { server, model } = await setup({ chat: () => ({ status: 401 }) });
    await expect(model.chat(ask("answer"))).rejects.toMatchObject({ status: 401 });
    expect(server.count("answer")).toBe(1);
  });

  it("downgrades response_format on a 400 that blames it, and remembers", async () => {
    const seen: unknown[] = [];
    const chat: ChatHandler = ({ body }) => {
      seen.push(body.response_format?.type ?? "none");
      if (body.response_format) {
        const message = `response_format ${body.response_format.type} is not supported by this server`;
        return { status: 400, body: { error: { message } } };
      }
      return { content: '{"ok":true}' };
    };
    const { model } = await setup({ chat });
    expect((await model.chat(ask("extract", { jsonSchema: SCHEMA }))).text).toBe('{"ok":true}');
    expect(seen).toEqual(["json_schema", "json_object", "none"]);
    await model.chat(ask("extract", { jsonSchema: SCHEMA }));
    expect(seen.slice(3)).toEqual(["none"]);
  });

  it("switches to max_completion_tokens when the endpoint asks for it", async () => {
    const chat: ChatHandler = ({ body }) =>
      body.max_tokens !== undefined
        ? {
            status: 400,
            body: { error: { message: "Unsupported 'max_tokens': use 'max_completion_tokens'" } },
          }
        : { content: `limit ${body.max_completion_tokens}` };
    const { model } = await setup({ chat });
    expect((await model.chat(ask("answer", { maxTokens: 77 }))).text).toBe("limit 77");
  });

  it("streams tokens and reads the final usage chunk", async () => {
    const usage = { promptTokens: 11, completionTokens: 22 };
    const { server, model } = await setup({ chat: () => ({ content: "one two three four", usage }) });
    const tokens: string[] = [];
    const answer = await model.chat(ask("answer", { onToken: (t) => tokens.push(t) }));
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("one two three four");
    expect(answer.text).toBe("one two three four");
    expect(answer.usage).toEqual(usage);
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it("estimates usage when the endpoint sends none", async () => {
    const { model } = await setup({ chat: () => ({ content: "alpha beta gamma" }), omitUsage: true });
    const streamed = await model.chat(ask("answer", { onToken: () => {} }));
    const plain = await model.chat(ask("answer"));
    for (const answer of [streamed, plain]) {
      expect(answer.usage.completionTokens).toBeGreaterThan(0);
      expect(answer.usage.promptTokens).toBeGreaterThan(0);
    }
  });

  it("returns truncated content as sent, flagged as cut off at the output limit", async () => {
    const { model } = await setup({
      chat: () => ({ truncate: true, content: '{"entities":[{"name":"A"}]}' }),
    });
    const answer = await model.chat(ask("extract"));
    expect(answer.text.length).toBeLessThan('{"entities":[{"name":"A"}]}'.length);
    expect(() => JSON.parse(answer.text)).toThrow();
    expect(answer.truncated).toBe(true);
    const streamed = await model.chat({ ...ask("extract"), onToken: () => {} });
    expect(streamed.truncated).toBe(true);
  });

  it("does not flag an answer that ended normally", async () => {
    const { model } = await setup({ chat: () => ({ content: '{"entities":[]}' }) });
    expect((await model.chat(ask("extract"))).truncated).toBe(false);
    expect((await model.chat({ ...ask("extract"), onToken: () => {} })).truncated).toBe(false);
  });

  it("never has more requests in flight than the concurrency limit", async () => {
    const { server, model } = await setup(
      { chat: () => ({ content: "x" }), latencyMs: 40 },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 12 }, () => model.chat(ask("global-map"))));
    expect(server.count("global-map")).toBe(12);
    expect(server.maxInFlight).toBe(3);
  });
});
