import { describe, expect, it } from "vitest";
import { ExtractionSchema } from "../../src/config.js";
import { LlmExtractor, type LlmExtractorOptions } from "../../src/extraction/llm-extractor.js";
import type { ChatModel, ChatRequest, ChatResponse, Stage } from "../../src/llm/chat-model.js";
import type { ChunkRecord } from "../../src/types.js";

/** An answer that stopped at the output limit (finish_reason "length") with this text. */
interface CutOff {
  cutOff: string;
}

/** Answers each stage from its own script, in order, and records every request. */
class StageScriptedChat implements ChatModel {
  readonly model = "stage-scripted";
  readonly requests: ChatRequest[] = [];
  private readonly next = new Map<Stage, number>();

  constructor(private readonly scripts: Partial<Record<Stage, (string | Error | CutOff)[]>>) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const index = this.next.get(request.stage) ?? 0;
    this.next.set(request.stage, index + 1);
    const answer = this.scripts[request.stage]?.[index];
    if (answer === undefined) throw new Error(`no scripted answer for ${request.stage} #${index}`);
    if (answer instanceof Error) throw answer;
    const usage = { promptTokens: 1, completionTokens: 1 };
    if (typeof answer === "string") return { text: answer, usage, cached: false };
    return { text: answer.cutOff, usage, cached: false, truncated: true };
  }

  stages(): Stage[] {
    return this.requests.map((r) => r.stage);
  }
}

const CHUNK: ChunkRecord = {
  id: "c1",
  docId: "d1",
  index: 0,
  text: "Christopher Nolan directed Inception, produced by Syncopy.",
  tokens: 12,
  start: 0,
  end: 57,
};

function options(overrides: Partial<LlmExtractorOptions> = {}): LlmExtractorOptions {
  return { ...ExtractionSchema.parse({}), ...overrides };
}

const FIRST = JSON.stringify({
  entities: [
    { name: "Christopher Nolan", type: "person", description: "A director." },
    { name: "Inception", type: "work", description: "A 2010 film directed by Christopher Nolan." },
  ],
  relationships: [
    {
      source: "Christopher Nolan",
      target: "Inception",
      description: "Nolan directed Inception.",
      keywords: ["direction"],
      strength: 6,
    },
  ],
});

const GLEANED = JSON.stringify({
  entities: [
    {
      name: "christopher nolan",
      type: "person",
      description: "Christopher Nolan is a British-American film director.",
    },
    { name: "Syncopy", type: "organization", description: "Production company that produced Inception." },
  ],
  relationships: [
    {
      source: "Inception",
      target: "Christopher Nolan",
      description: "Directed.",
      keywords: ["Direction", "filmmaking"],
      strength: 9,
    },
    {
      source: "Syncopy",
      target: "Inception",
      description: "Syncopy produced Inception.",
      keywords: ["production"],
      strength: 7,
    },
  ],
});

describe("LlmExtractor", () => {
  it("extracts, gleans once and merges the rounds", async () => {
    const chat = new StageScriptedChat({ extract: [FIRST], glean: [GLEANED] });
    const outcome = await new LlmExtractor(chat, options()).extract(CHUNK, { title: "Inception" });

    expect(chat.stages()).toEqual(["extract", "glean"]);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const { entities, relationships } = outcome.extraction;
    expect(entities.map((e) => e.name)).toEqual(["Christopher Nolan", "Inception", "Syncopy"]);
    expect(entities[0]?.description).toBe("Christopher Nolan is a British-American film director.");
    expect(relationships).toHaveLength(2);
    expect(relationships[0]).toEqual({
      source: "Christopher Nolan",
      target: "Inception",
      description: "Nolan directed Inception.",
      keywords: ["direction", "filmmaking"],
      strength: 9,
    });
  });

  it("continues the conversation for gleaning and asks for structured output at both stages", async () => {
    const chat = new StageScriptedChat({ extract: [FIRST], glean: [GLEANED] });
    await new LlmExtractor(chat, options()).extract(CHUNK, { title: "Inception" });
    const [extract, glean] = chat.requests;
    expect(extract?.messages).toHaveLength(1);
    expect(extract?.messages[0]?.content).toContain(CHUNK.text);
    expect(extract?.messages[0]?.content).toContain("Document title: Inception");
    expect(extract?.messages[0]?.content).toContain("person, organization, location");
    expect(glean?.messages.slice(0, 2)).toEqual([
      extract?.messages[0],
      { role: "assistant", content: FIRST },
    ]);
    expect(glean?.messages[2]?.role).toBe("user");
    expect(extract?.jsonSchema?.name).toBe(glean?.jsonSchema?.name);
    expect(extract?.acceptAnswer?.(FIRST)).toBe(true);
    expect(extract?.acceptAnswer?.("no json here")).toBe(false);
    // The glean continues the chunk's conversation: it waits ahead of other chunks' first requests.
    expect([extract?.followUp, glean?.followUp]).toEqual([false, true]);
  });

  it("asks again with a different prompt after an unreadable answer", async () => {
    const chat = new StageScriptedChat({ extract: ["Sorry, I cannot do that.", FIRST] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 0 })).extract(CHUNK, { title: "" });

    expect(outcome.ok).toBe(true);
    expect(chat.stages()).toEqual(["extract", "extract"]);
    expect(chat.requests.map((r) => r.followUp)).toEqual([false, true]);
    const [first, retry] = chat.requests.map((r) => r.messages);
    // The cached chat model keys on the prompt: an identical retry would replay the bad answer.
    expect(JSON.stringify(retry)).not.toBe(JSON.stringify(first));
    expect(retry?.[1]).toEqual({ role: "assistant", content: "Sorry, I cannot do that." });
    expect(retry?.[2]?.content).toContain("no JSON");
  });

  it("asks again for a complete answer when one was cut off at the output limit", async () => {
    // Repair would close the cut JSON after the first entity, silently losing the rest.
    const cut = FIRST.slice(0, FIRST.indexOf("Inception") + 30);
    const chat = new StageScriptedChat({ extract: [{ cutOff: cut }, FIRST] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 0 })).extract(CHUNK, { title: "" });
    expect(chat.stages()).toEqual(["extract", "extract"]);
    expect(chat.requests[1]?.messages.at(-1)?.content).toMatch(/cut off before the JSON was complete/);
    expect(outcome.ok && outcome.extraction.relationships).toHaveLength(1);
    expect(outcome.ok && outcome.partial).toBeUndefined();
  });

  it("asks again when the JSON stops unclosed even though the model said it had finished", async () => {
    const cut = FIRST.slice(0, Math.floor(FIRST.length / 2));
    const chat = new StageScriptedChat({ extract: [cut, FIRST] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 0 })).extract(CHUNK, { title: "" });
    expect(chat.stages()).toEqual(["extract", "extract"]);
    expect(outcome.ok && outcome.extraction).toEqual(JSON.parse(FIRST));
    expect(outcome.ok && outcome.partial).toBeUndefined();
    // Neither the cache nor a later run may take the cut answer as final.
    expect(chat.requests[0]?.acceptAnswer?.(cut)).toBe(false);
    expect(chat.requests[0]?.acceptAnswer?.(`\`\`\`json\n${FIRST.replace("]}", "],}")}\n\`\`\``)).toBe(true);
  });

  it("keeps the readable part, marked partial, when every attempt is cut off", async () => {
    const cut = FIRST.slice(0, FIRST.indexOf("relationships") - 2);
    const chat = new StageScriptedChat({ extract: [{ cutOff: cut }, cut] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 2, parseAttempts: 2 })).extract(CHUNK, {
      title: "",
    });
    expect(chat.stages()).toEqual(["extract", "extract"]);
    expect(outcome.ok && outcome.extraction.entities.map((e) => e.name)).toEqual([
      "Christopher Nolan",
      "Inception",
    ]);
    expect(outcome.ok && outcome.partial).toEqual({
      reason: expect.stringMatching(/cut short/),
      rawOutput: cut,
    });
  });

  it("keeps an earlier cut-off answer's readable part when a later attempt is unreadable", async () => {
    const cut = FIRST.slice(0, FIRST.indexOf("relationships") - 2);
    const chat = new StageScriptedChat({ extract: [{ cutOff: cut }, "Sorry, I cannot continue."] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 0, parseAttempts: 2 })).extract(CHUNK, {
      title: "",
    });
    expect(outcome.ok && outcome.extraction.entities.map((e) => e.name)).toEqual([
      "Christopher Nolan",
      "Inception",
    ]);
  });

  it("asks a cut-off glean again, and keeps the readable part, marked partial, when all are cut", async () => {
    const cut = GLEANED.slice(0, GLEANED.indexOf("relationships") - 2);
    const empty = '{"entities":[],"relationships":[]}';
    const retried = new StageScriptedChat({ extract: [FIRST], glean: [cut, GLEANED, empty] });
    const complete = await new LlmExtractor(retried, options({ gleaning: 2 })).extract(CHUNK, { title: "" });
    expect(retried.stages()).toEqual(["extract", "glean", "glean", "glean"]);
    expect(complete.ok && complete.extraction.relationships).toHaveLength(2);
    expect(complete.ok && complete.partial).toBeUndefined();

    const chat = new StageScriptedChat({ extract: [FIRST], glean: [{ cutOff: cut }, cut, GLEANED] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 2 })).extract(CHUNK, { title: "" });
    expect(chat.stages()).toEqual(["extract", "glean", "glean"]);
    expect(outcome.ok && outcome.extraction.entities.map((e) => e.name)).toContain("Syncopy");
    expect(outcome.ok && outcome.partial?.rawOutput).toBe(cut);
  });

  it("returns a failure with the raw output when every attempt is unreadable", async () => {
    const chat = new StageScriptedChat({ extract: ["garbage one", "garbage two", "garbage three"] });
    const outcome = await new LlmExtractor(chat, options({ parseAttempts: 3 })).extract(CHUNK, {
      title: "t",
    });

    expect(outcome).toEqual({
      ok: false,
      error: expect.stringContaining("3 attempts"),
      rawOutput: "garbage three",
    });
    const prompts = chat.requests.map((r) => JSON.stringify(r.messages));
    expect(new Set(prompts).size).toBe(3);
    expect(chat.stages()).toEqual(["extract", "extract", "extract"]);
  });

  it("asks again after JSON of the wrong shape, then fails with it as the raw output", async () => {
    const wrongShape = '{"entities": "none", "relationships": 5}';
    const chat = new StageScriptedChat({ extract: [wrongShape, wrongShape] });
    const outcome = await new LlmExtractor(chat, options({ parseAttempts: 2 })).extract(CHUNK, { title: "" });
    expect(outcome).toEqual({ ok: false, error: expect.stringContaining("shape"), rawOutput: wrongShape });
    expect(chat.requests[1]?.messages.at(-1)?.content).toContain("lists of objects");
    expect(chat.requests[0]?.acceptAnswer?.(wrongShape)).toBe(false);
    expect(chat.requests[0]?.acceptAnswer?.('{"entities":[],"relationships":[]}')).toBe(true);
  });

  it("fails on JSON broken before its end, even marked finished, keeping nothing of it", async () => {
    const broken = '{"entities": [{"name": "Broken", "type": oops ] garbage';
    const chat = new StageScriptedChat({ extract: [broken, broken] });
    const outcome = await new LlmExtractor(chat, options({ parseAttempts: 2 })).extract(CHUNK, { title: "" });
    expect(outcome).toEqual({ ok: false, error: expect.stringContaining("broken"), rawOutput: broken });
    expect(outcome.ok || outcome.error).not.toMatch(/cut short|cut off/);
  });

  it("makes a single call when gleaning is 0", async () => {
    const chat = new StageScriptedChat({ extract: [FIRST] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 0 })).extract(CHUNK, { title: "t" });
    expect(chat.stages()).toEqual(["extract"]);
    expect(outcome.ok && outcome.extraction.entities).toHaveLength(2);
  });

  it("ignores a glean answer unreadable in every attempt and keeps the first round", async () => {
    const chat = new StageScriptedChat({ extract: [FIRST], glean: ["{{{ not json", "no", GLEANED] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 2 })).extract(CHUNK, { title: "t" });
    expect(chat.stages()).toEqual(["extract", "glean", "glean"]);
    expect(outcome.ok && outcome.partial).toBeUndefined();
    expect(outcome.ok && outcome.extraction.entities.map((e) => e.name)).toEqual([
      "Christopher Nolan",
      "Inception",
    ]);
  });

  it("runs several glean rounds, each a longer conversation", async () => {
    const empty = '{"entities":[],"relationships":[]}';
    const chat = new StageScriptedChat({ extract: [FIRST], glean: [GLEANED, empty] });
    const outcome = await new LlmExtractor(chat, options({ gleaning: 2 })).extract(CHUNK, { title: "t" });
    expect(chat.stages()).toEqual(["extract", "glean", "glean"]);
    expect(chat.requests[2]?.messages).toHaveLength(5);
    expect(chat.requests[2]?.messages[3]).toEqual({ role: "assistant", content: GLEANED });
    expect(outcome.ok && outcome.extraction.entities).toHaveLength(3);
  });

  it("returns transport errors as failures instead of throwing", async () => {
    const chat = new StageScriptedChat({ extract: [new Error("503 Service Unavailable after 5 retries")] });
    const outcome = await new LlmExtractor(chat, options()).extract(CHUNK, { title: "t" });
    expect(outcome).toEqual({
      ok: false,
      error: expect.stringContaining("503 Service Unavailable"),
      rawOutput: null,
    });
  });

  it("asks for the passage's own language by default and for a set language otherwise", async () => {
    const auto = new StageScriptedChat({ extract: [FIRST] });
    await new LlmExtractor(auto, options({ gleaning: 0 })).extract(CHUNK, { title: "t" });
    expect(auto.requests[0]?.messages[0]?.content).toContain("language of the passage");

    const chinese = new StageScriptedChat({ extract: [FIRST] });
    await new LlmExtractor(chinese, options({ gleaning: 0, language: "Chinese" })).extract(CHUNK, {
      title: "t",
    });
    expect(chinese.requests[0]?.messages[0]?.content).toContain("in Chinese");
  });
});
