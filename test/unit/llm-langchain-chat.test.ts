import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../src/llm/chat-model.js";
import { LangChainChatModel, stoppedAtLimit } from "../../src/llm/langchain-chat.js";

/** Records what the adapter hands to LangChain. */
class RecordingModel extends FakeListChatModel {
  readonly seen: Array<{ messages: BaseMessage[]; options: Record<string, unknown> }> = [];

  override async _generate(
    messages: BaseMessage[],
    options?: this["ParsedCallOptions"],
  ): Promise<ChatResult> {
    this.seen.push({ messages, options: { ...options } });
    return super._generate(messages, options);
  }
}

/** An OpenAI-style model: accepts response_format and reports token usage. */
class StructuredModel extends RecordingModel {
  override get callKeys(): string[] {
    return [...super.callKeys, "response_format"];
  }

  override async _generate(
    messages: BaseMessage[],
    options?: this["ParsedCallOptions"],
  ): Promise<ChatResult> {
    const result = await super._generate(messages, options);
    const text = result.generations[0]?.text ?? "";
    const usage_metadata = { input_tokens: 31, output_tokens: 7, total_tokens: 38 };
    return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata }) }] };
  }

  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    for (const text of ["Par", "is"])
      yield new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
    const usage_metadata = { input_tokens: 12, output_tokens: 2, total_tokens: 14 };
    yield new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", usage_metadata }) });
  }
}

const SCHEMA = { name: "entities", schema: { type: "object", required: ["entities"] } };
const request: ChatRequest = {
  stage: "extract",
  messages: [
    { role: "system", content: "You extract." },
    { role: "user", content: "Text: Paris is in France." },
    { role: "assistant", content: "{}" },
    { role: "user", content: "Anything missed?" },
  ],
};

describe("LangChainChatModel", () => {
  it("maps roles to LangChain messages and returns the text with estimated usage", async () => {
    const lc = new RecordingModel({ responses: ["plain answer"] });
    const answer = await new LangChainChatModel(lc, { model: "fake" }).chat(request);
    expect(answer.text).toBe("plain answer");
    expect(answer.cached).toBe(false);
    expect(answer.usage.promptTokens).toBeGreaterThan(0);
    expect(answer.usage.completionTokens).toBeGreaterThan(0);
    expect(lc.seen[0]?.messages.map((m) => [m.type, m.text])).toEqual([
      ["system", "You extract."],
      ["human", "Text: Paris is in France."],
      ["ai", "{}"],
      ["human", "Anything missed?"],
    ]);
  });

  it("asks for JSON in words when the model has no response_format", async () => {
    const lc = new RecordingModel({ responses: ["{}"] });
    await new LangChainChatModel(lc).chat({ ...request, jsonSchema: SCHEMA });
    const last = lc.seen[0]?.messages.at(-1);
    expect(last?.type).toBe("human");
    expect(last?.text).toMatch(/^Anything missed\?\n\n.*JSON/s);
    expect(last?.text).toContain(JSON.stringify(SCHEMA.schema));
    expect(lc.seen[0]?.options.response_format).toBeUndefined();
  });

  it("passes response_format and reads usage_metadata when the model supports it", async () => {
    const lc = new StructuredModel({ responses: ['{"entities":[]}'] });
    const answer = await new LangChainChatModel(lc).chat({ ...request, jsonSchema: SCHEMA });
    expect(lc.seen[0]?.options.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "entities", schema: SCHEMA.schema, strict: false },
    });
    expect(lc.seen[0]?.messages.at(-1)?.text).toBe("Anything missed?");
    expect(answer.usage).toEqual({ promptTokens: 31, completionTokens: 7 });
  });

  it("streams deltas to onToken and sums the streamed usage", async () => {
    const tokens: string[] = [];
    const answer = await new LangChainChatModel(new StructuredModel({ responses: [] })).chat({
      ...request,
      onToken: (t) => tokens.push(t),
    });
    expect(tokens).toEqual(["Par", "is"]);
    expect(answer.text).toBe("Paris");
    expect(answer.usage).toEqual({ promptTokens: 12, completionTokens: 2 });
  });

  it("streams from a stock FakeListChatModel", async () => {
    const tokens: string[] = [];
    const answer = await new LangChainChatModel(new FakeListChatModel({ responses: ["hello"] })).chat({
      ...request,
      onToken: (t) => tokens.push(t),
    });
    expect(tokens.join("")).toBe("hello");
    expect(tokens.length).toBeGreaterThan(1);
    expect(answer.text).toBe("hello");
  });

  it("names itself after the model's type when no name is given", () => {
    expect(new LangChainChatModel(new FakeListChatModel({ responses: [] })).model).toBe("fake-list");
  });

  it("reads the output-limit stop as OpenAI, Anthropic and Ollama report it", () => {
    expect(stoppedAtLimit({ finish_reason: "length" })).toBe(true);
    expect(stoppedAtLimit({ stop_reason: "max_tokens" })).toBe(true);
    expect(stoppedAtLimit({ done_reason: "length" })).toBe(true);
    expect(stoppedAtLimit({ finishReason: "MAX_TOKENS" })).toBe(true);
    expect(stoppedAtLimit({ finish_reason: "lengthlength" })).toBe(true);
    expect(stoppedAtLimit({ finish_reason: "stop" })).toBe(false);
    expect(stoppedAtLimit(undefined)).toBe(false);
  });
});
