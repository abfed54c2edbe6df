import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runQuery } from "../../src/query/query-engine.js";
import { childEnv } from "../support/cli-child.js";
import {
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";
import {
  ATLAS_DOCS,
  json,
  offlineWorkspace,
  type Running,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

// The requests Ollama's clients send as they send them (Open WebUI, ollama-js and -python, the
// ollama CLI), and the fields of the replies they read.

const dirs: string[] = [];
let running: Running;
let withModel: Running;
let model: ScriptedServer;

const TITLE = '{"title": "🤖 Lumen Robotics founder"}';
const ANSWER = "Mara Okafor founded Lumen Robotics [1].";
const JSON_ANSWER = '{"founder": "Mara Okafor", "company": "Lumen Robotics"}';
const FOUNDER_SCHEMA = {
  type: "object",
  properties: { founder: { type: "string" }, company: { type: "string" } },
  required: ["founder", "company"],
};

beforeAll(async () => {
  const [offline, modelled] = [await tempDir("ollama-clients"), await tempDir("ollama-clients-llm")];
  dirs.push(offline, modelled);
  await offlineWorkspace(offline, ATLAS_DOCS);
  await offlineWorkspace(modelled, ATLAS_DOCS);
  running = await startServer({ workspaces: [offline] });
  model = await startScriptedOpenAI({
    chat: scriptByStage({
      keywords: {
        content: '{"high_level_keywords": ["founding"], "low_level_keywords": ["Lumen Robotics"]}',
      },
      answer: (call) =>
        call.body.response_format
          ? { content: JSON_ANSWER }
          : String(call.body.messages?.at(-1)?.content).startsWith("### Task:")
            ? { content: TITLE }
            : { content: ANSWER },
    }),
  });
  withModel = await startServer({
    workspaces: [modelled],
    env: childEnv({ KGRAG_LLM_BASE_URL: model.baseURL, KGRAG_LLM_API_KEY: "k", KGRAG_LLM_MODEL: "scripted" }),
  });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await withModel?.stop();
  await model?.close();
  await removeAll(dirs);
});

// No content type: what Ollama's own clients and `curl -d` send.
const post = (path: string, body: unknown) =>
  fetch(`${running.url}${path}`, { method: "POST", body: JSON.stringify(body) });

type Line = Record<string, unknown>;

async function ndjson(response: Response): Promise<Line[]> {
  expect(response.headers.get("content-type")).toMatch(/application\/x-ndjson/);
  return (await response.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

/** The statistics on the last object, every one a number: typed clients fail on a missing one. */
const STATISTICS = {
  total_duration: expect.any(Number),
  load_duration: expect.any(Number),
  prompt_eval_count: expect.any(Number),
  prompt_eval_duration: expect.any(Number),
  eval_count: expect.any(Number),
  eval_duration: expect.any(Number),
};

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const queriesRun = () => vi.spyOn(running.server.context.registry.all[0]!.queries, "run");

describe("kgrag serve: Ollama's /api/generate", () => {
  it("answers a prompt as the question, streamed as `response` pieces then the statistics", async () => {
    const lines = await ndjson(
      await post("/api/generate", {
        model: "kgrag:latest",
        prompt: "/naive Who founded Lumen Robotics?",
        system: "Answer briefly.",
        options: { temperature: 0, num_ctx: 4096 },
        keep_alive: "5m",
      }),
    );
    for (const line of lines.slice(0, -1))
      expect(line).toEqual({
        model: "kgrag:latest",
        created_at: expect.stringMatching(ISO_TIME),
        response: expect.any(String),
        done: false,
      });
    expect(lines.at(-1)).toEqual({
      model: "kgrag:latest",
      created_at: expect.stringMatching(ISO_TIME),
      response: "",
      done: true,
      done_reason: "stop",
      ...STATISTICS,
    });
    const text = lines.map((l) => l.response).join("");
    const naive = await runQuery(
      running.server.context.registry.all[0]!.kgrag.services,
      "Who founded Lumen Robotics?",
      { mode: "naive" },
    );
    expect(text.startsWith(naive.answer.trimEnd())).toBe(true);
    expect(text).toMatch(/Sources:\n\[1\] /);
  });

  it("answers in one object when not streaming, and refuses what Ollama's chat refuses", async () => {
    const response = await post("/api/generate", {
      model: "kgrag",
      prompt: "Where is Lumen Robotics?",
      stream: false,
    });
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const answer = await json(response);
    expect(answer).toEqual({
      model: "kgrag",
      created_at: expect.stringMatching(ISO_TIME),
      response: expect.stringMatching(/Sources:\n\[1\] /),
      done: true,
      done_reason: "stop",
      ...STATISTICS,
    });
    const unknown = await post("/api/generate", { model: "llama3.2", prompt: "Who?" });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({ error: "model 'llama3.2' not found" });
    const prefixOnly = await post("/api/generate", { model: "kgrag", prompt: "/local " });
    expect(prefixOnly.status).toBe(400);
    expect(await json(prefixOnly)).toEqual({ error: expect.stringMatching(/no question/) });
  });
});

describe("kgrag serve: Ollama's load and unload requests", () => {
  it("answers an empty chat or prompt as loaded, or unloaded with keep_alive 0, asking nothing", async () => {
    const ask = queriesRun();
    try {
      const cases: [string, Record<string, unknown>, string][] = [
        ["/api/chat", { model: "kgrag:latest", messages: [] }, "load"],
        ["/api/chat", { model: "kgrag:latest", messages: [], keep_alive: 0 }, "unload"],
        ["/api/chat", { model: "kgrag:latest", messages: [], keep_alive: "0s" }, "unload"],
        ["/api/chat", { model: "kgrag:latest", messages: [], keep_alive: "10m" }, "load"],
        ["/api/generate", { model: "kgrag:latest" }, "load"],
        // Open WebUI's "unload" sends this.
        ["/api/generate", { model: "kgrag:latest", prompt: "", keep_alive: 0 }, "unload"],
        ["/api/generate", { model: "kgrag:latest", keep_alive: "0" }, "unload"],
      ];
      for (const [path, body, reason] of cases) {
        const response = await post(path, body);
        expect(response.status, JSON.stringify(body)).toBe(200);
        const empty =
          path === "/api/chat" ? { message: { role: "assistant", content: "" } } : { response: "" };
        expect(await json(response), JSON.stringify(body)).toEqual({
          model: "kgrag:latest",
          created_at: expect.stringMatching(ISO_TIME),
          ...empty,
          done: true,
          done_reason: reason,
        });
      }
      expect(ask).not.toHaveBeenCalled();
    } finally {
      ask.mockRestore();
    }
    // A model kgrag does not serve is not found, loading or not.
    const unknown = await post("/api/chat", { model: "llama3.2", messages: [] });
    expect(unknown.status).toBe(404);
  });
});

describe("kgrag serve: Ollama's /api/ps", () => {
  it("lists the served models as running, with the fields of Ollama's own list", async () => {
    const response = await fetch(`${running.url}/api/ps`);
    expect(response.status).toBe(200);
    const { models } = (await json(response)) as { models: Line[] };
    expect(models).toEqual([
      {
        name: "kgrag:latest",
        model: "kgrag:latest",
        modified_at: expect.stringMatching(ISO_TIME),
        size: 0,
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        details: expect.objectContaining({ family: "kgrag" }),
        expires_at: expect.stringMatching(ISO_TIME),
        size_vram: 0,
      },
    ]);
  });
});

describe("kgrag serve: Ollama's /api/chat as Open WebUI sends it", () => {
  // A system prompt, the history with an assistant turn that called a tool (no content), a user
  // turn with an image, Ollama's options: kgrag takes the last user message as the question.
  const openWebUiBody = (stream: boolean) => ({
    model: "kgrag:latest",
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Tell me about Lumen Robotics." },
      { role: "assistant", tool_calls: [{ function: { name: "search", arguments: {} } }] },
      { role: "tool", content: "[]" },
      { role: "assistant", content: "It builds warehouse robots." },
      { role: "user", content: "/local Who founded Lumen Robotics?", images: ["iVBORw0KGgo="] },
    ],
    stream,
    options: { temperature: 0.8, num_ctx: 2048 },
    keep_alive: "5m",
    format: "",
  });

  it("answers, the last object carrying every statistic, streamed or not", async () => {
    const lines = await ndjson(await post("/api/chat", openWebUiBody(true)));
    expect(lines.at(-1)).toEqual({
      model: "kgrag:latest",
      created_at: expect.stringMatching(ISO_TIME),
      message: { role: "assistant", content: "" },
      done: true,
      done_reason: "stop",
      ...STATISTICS,
    });
    expect(lines.map((l) => (l.message as { content: string }).content).join("")).toMatch(/Sources:\n\[1\] /);
    const single = await json(await post("/api/chat", openWebUiBody(false)));
    expect(single).toEqual({
      model: "kgrag:latest",
      created_at: expect.stringMatching(ISO_TIME),
      message: { role: "assistant", content: expect.stringMatching(/Sources:\n\[1\] /) },
      done: true,
      done_reason: "stop",
      ...STATISTICS,
    });
  });

  it("puts the statistics on the last object of a notice too (a /prefix that names no mode)", async () => {
    const body = { model: "kgrag", messages: [{ role: "user", content: "/foo Who?" }] };
    const lines = await ndjson(await post("/api/chat", body));
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: "stop", ...STATISTICS });
    const single = await json(await post("/api/chat", { ...body, stream: false }));
    expect(single).toMatchObject({ done: true, done_reason: "stop", ...STATISTICS });
    expect((single.message as { content: string }).content).toMatch(/"\/foo" is not a query mode/);
  });
});

describe("kgrag serve: Open WebUI's errands (title, tags, follow-ups)", () => {
  // The shape of Open WebUI's task prompts, sent to the chat's own model after each answer.
  const titleTask =
    "### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n" +
    '### Output:\nJSON format: { "title": "your concise title here" }\n### Chat History:\n<chat_history>\n' +
    "USER: Who founded Lumen Robotics?\nASSISTANT: Mara Okafor founded it [1].\n</chat_history>";
  const chatTask = (url: string) =>
    fetch(`${url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({
        model: "kgrag:latest",
        messages: [{ role: "user", content: titleTask }],
        stream: false,
      }),
    });

  it("offline, answers them with an empty JSON object (the client keeps its own title), asking nothing", async () => {
    const ask = queriesRun();
    try {
      expect(await json(await chatTask(running.url))).toMatchObject({
        message: { role: "assistant", content: "{}" },
        done: true,
        done_reason: "stop",
        ...STATISTICS,
      });
      const generated = await json(
        await post("/api/generate", { model: "kgrag", prompt: titleTask, stream: false }),
      );
      expect(generated).toMatchObject({ response: "{}", done: true });
      expect(ask).not.toHaveBeenCalled();
    } finally {
      ask.mockRestore();
    }
  });

  it("with a chat model, has the model do them alone, the prompt as sent, with no retrieval or sources", async () => {
    const before = model.requests.length;
    const answer = await json(await chatTask(withModel.url));
    expect((answer.message as { content: string }).content).toBe(TITLE);
    const calls = model.requests.slice(before);
    expect(calls.map((r) => r.stage)).toEqual(["answer"]);
    // A question still goes through the graph.
    const asked = await json(
      await fetch(`${withModel.url}/api/chat`, {
        method: "POST",
        body: JSON.stringify({
          messages: [{ role: "user", content: "Who founded Lumen Robotics?" }],
          stream: false,
        }),
      }),
    );
    const content = (asked.message as { content: string }).content;
    expect(content).toMatch(/^Mara Okafor founded Lumen Robotics \[1\]\.\n\nSources:\n\[1\] /);
    // Streamed, the model's tokens then the sources add up to the same text.
    const lines = await ndjson(
      await fetch(`${withModel.url}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content: "Who founded Lumen Robotics?" }] }),
      }),
    );
    expect(lines.map((l) => (l.message as { content: string }).content).join("")).toBe(content);
    expect(lines.at(-1)).toMatchObject({ done: true, ...STATISTICS });
  });
});

describe("kgrag serve: OpenAI's chat completions (/v1), through OpenAI's own client", () => {
  const client = () => new OpenAI({ baseURL: `${running.url}/v1`, apiKey: "none", maxRetries: 0 });
  const question = "/naive Who founded Lumen Robotics?";

  it("lists the models of /api/tags and answers as /api/chat does, whole or streamed", async () => {
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(["kgrag:latest"]);
    const naive = await runQuery(
      running.server.context.registry.all[0]!.kgrag.services,
      "Who founded Lumen Robotics?",
      { mode: "naive" },
    );
    const messages = [
      { role: "system" as const, content: "You are a helpful assistant." },
      { role: "user" as const, content: [{ type: "text" as const, text: question }] },
    ];
    const whole = await client().chat.completions.create({ model: "kgrag:latest", messages });
    expect(whole).toMatchObject({ object: "chat.completion", model: "kgrag:latest" });
    expect(whole.choices).toEqual([
      { index: 0, message: { role: "assistant", content: expect.any(String) }, finish_reason: "stop" },
    ]);
    expect(whole.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    const text = whole.choices[0]?.message.content ?? "";
    expect(text.startsWith(naive.answer.trimEnd())).toBe(true);
    expect(text).toMatch(/Sources:\n\[1\] /);

    const chunks = await client().chat.completions.create({
      model: "kgrag:latest",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = "";
    const finishes: (string | null)[] = [];
    let usage: unknown;
    for await (const chunk of chunks) {
      for (const choice of chunk.choices) {
        streamed += choice.delta.content ?? "";
        finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(streamed).toBe(text);
    expect(finishes.at(-1)).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it("refuses an unknown model and a conversation without a user message as OpenAI's client reads errors", async () => {
    const unknown = client().chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "Who?" }],
    });
    await expect(unknown).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/gpt-4o/) });
    const noUser = client().chat.completions.create({
      model: "kgrag",
      messages: [{ role: "system", content: "Who?" }],
    });
    await expect(noUser).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/no user message/),
    });
  });
});

describe("kgrag serve: the question and history of a conversation, the same on /api/chat and /v1", () => {
  const turns = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "/local Who founded Lumen Robotics?" },
    { role: "assistant", content: "Mara Okafor founded Lumen Robotics [1]." },
    { role: "tool", content: '{"result": 1}' },
    { role: "user", content: "  " },
    { role: "user", content: "/etc/hosts is a file; ignore it" },
    { role: "assistant", content: "" },
    { role: "user", content: "/naive When was it founded?" },
  ];
  const history = [
    { role: "user", content: "Who founded Lumen Robotics?" },
    { role: "assistant", content: "Mara Okafor founded Lumen Robotics [1]." },
    { role: "user", content: "/etc/hosts is a file; ignore it" },
  ];

  it("asks the last user message, its /mode prefix read, with the earlier user and assistant turns as history", async () => {
    const ask = queriesRun();
    try {
      const ollama = await post("/api/chat", { model: "kgrag", messages: turns, stream: false });
      expect(ollama.status).toBe(200);
      // OpenAI's clients may send a message's text as parts.
      const openAiTurns = turns.map((t, i) =>
        i === 1 ? { ...t, content: [{ type: "text", text: t.content }] } : t,
      );
      const openAi = await fetch(`${running.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "kgrag", messages: openAiTurns }),
      });
      expect(openAi.status).toBe(200);
      expect(ask).toHaveBeenCalledTimes(2);
      for (const [question, options] of ask.mock.calls) {
        expect(question).toBe("When was it founded?");
        expect(options).toEqual({ mode: "naive", history });
      }
    } finally {
      ask.mockRestore();
    }
  });

  it("refuses a conversation without a user message alike", async () => {
    const messages = [
      { role: "system", content: "Who?" },
      { role: "assistant", content: "Nobody." },
    ];
    const ollama = await post("/api/chat", { model: "kgrag", messages, stream: false });
    expect(ollama.status).toBe(400);
    expect(await json(ollama)).toEqual({ error: expect.stringMatching(/no user message/) });
    const openAi = await fetch(`${running.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "kgrag", messages }),
    });
    expect(openAi.status).toBe(400);
    expect(await json(openAi)).toMatchObject({
      error: { message: expect.stringMatching(/no user message/) },
    });
  });
});

describe("kgrag serve: JSON answers (Ollama's format, OpenAI's response_format)", () => {
  /** The answer-stage requests the scripted model received since `before`. */
  const answerCalls = (before: number) => model.requests.slice(before).filter((r) => r.stage === "answer");
  const systemPrompt = (body: Record<string, unknown>) =>
    String((body.messages as { role: string; content: string }[])[0]?.content);

  it("with a chat model, asks it for the schema and answers with its JSON alone, no sources", async () => {
    let before = model.requests.length;
    const chat = await json(
      await fetch(`${withModel.url}/api/chat`, {
        method: "POST",
        body: JSON.stringify({
          messages: [{ role: "user", content: "Who founded Lumen Robotics, as JSON?" }],
          format: FOUNDER_SCHEMA,
          stream: false,
        }),
      }),
    );
    expect((chat.message as { content: string }).content).toBe(JSON_ANSWER);
    const [asked] = answerCalls(before);
    expect(asked?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "answer", schema: FOUNDER_SCHEMA, strict: false },
    });
    expect(systemPrompt(asked?.body ?? {})).toContain(JSON.stringify(FOUNDER_SCHEMA));

    // format "json", streamed: the pieces add up to the model's JSON.
    before = model.requests.length;
    const lines = await ndjson(
      await fetch(`${withModel.url}/api/generate`, {
        method: "POST",
        body: JSON.stringify({ prompt: "Who founded Lumen Robotics? Reply in JSON.", format: "json" }),
      }),
    );
    expect(lines.map((l) => l.response).join("")).toBe(JSON_ANSWER);
    expect(lines.at(-1)).toMatchObject({ done: true, ...STATISTICS });
    expect(answerCalls(before)[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema: { type: "object" } },
    });

    before = model.requests.length;
    const client = new OpenAI({ baseURL: `${withModel.url}/v1`, apiKey: "none", maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "kgrag",
      messages: [{ role: "user", content: "Which company did Mara Okafor found? JSON please." }],
      response_format: { type: "json_schema", json_schema: { name: "founder", schema: FOUNDER_SCHEMA } },
    });
    expect(completion.choices[0]?.message.content).toBe(JSON_ANSWER);
    expect(answerCalls(before)[0]?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "founder", schema: FOUNDER_SCHEMA, strict: false },
    });
  });

  it("offline, refuses a JSON answer with a 400 in each API's error shape, asking nothing", async () => {
    const ask = queriesRun();
    try {
      const question = [{ role: "user" as const, content: "Who founded Lumen Robotics?" }];
      for (const [path, body] of [
        ["/api/chat", { model: "kgrag", messages: question, format: "json", stream: false }],
        ["/api/chat", { model: "kgrag", messages: question, format: FOUNDER_SCHEMA }],
        ["/api/generate", { model: "kgrag", prompt: "Who founded Lumen Robotics?", format: FOUNDER_SCHEMA }],
      ] as const) {
        const response = await post(path, body);
        expect(response.status, path).toBe(400);
        expect(await json(response)).toEqual({ error: expect.stringMatching(/needs a chat model/) });
      }
      const client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: "none", maxRetries: 0 });
      for (const response_format of [
        { type: "json_object" as const },
        { type: "json_schema" as const, json_schema: { name: "founder", schema: FOUNDER_SCHEMA } },
      ]) {
        const refused = client.chat.completions.create({
          model: "kgrag",
          messages: question,
          response_format,
        });
        await expect(refused).rejects.toMatchObject({
          status: 400,
          code: "structured_output_offline",
          message: expect.stringMatching(/needs a chat model/),
        });
      }
      expect(ask).not.toHaveBeenCalled();
      // No format, an empty one (what some clients send by default) or "text": answered as text.
      const plain = await json(
        await post("/api/chat", { model: "kgrag", messages: question, format: "", stream: false }),
      );
      expect((plain.message as { content: string }).content).toMatch(/Sources:/);
      const text = await client.chat.completions.create({
        model: "kgrag",
        messages: question,
        response_format: { type: "text" },
      });
      expect(text.choices[0]?.message.content).toMatch(/Sources:/);
    } finally {
      ask.mockRestore();
    }
  });
});
