import type { BaseChatModel, BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk, BaseMessage, UsageMetadata } from "@langchain/core/messages";
import { countTokens } from "../util/tokens.js";
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, TokenUsage } from "./chat-model.js";
import { renderPrompt } from "./prompts.js";

/** LangChain call options plus the OpenAI-style structured-output parameter some models accept. */
type StructuredCallOptions = BaseChatModelCallOptions & {
  response_format?: {
    type: "json_schema";
    json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
  };
};

export interface LangChainChatOptions {
  /** Name used in the LLM cache key; defaults to the model's own name or LangChain type. */
  model?: string;
}

/** LangChain's message classes load with the first call: importing kgrag should not cost LangChain's start-up. */
async function toLangChain(messages: ChatMessage[]): Promise<BaseMessage[]> {
  const { AIMessage, HumanMessage, SystemMessage } = await import("@langchain/core/messages");
  return messages.map((message) => {
    if (message.role === "system") return new SystemMessage(message.content);
    if (message.role === "assistant") return new AIMessage(message.content);
    return new HumanMessage(message.content);
  });
}

/** Models without structured output get the schema as an instruction at the end of the last user turn. */
function withJsonInstruction(messages: ChatMessage[], schema: Record<string, unknown>): ChatMessage[] {
  const instruction = renderPrompt("json-answer-instruction", { json_schema: JSON.stringify(schema) });
  const last = messages.at(-1);
  if (last?.role !== "user") return [...messages, { role: "user", content: instruction }];
  return [...messages.slice(0, -1), { role: "user", content: `${last.content}\n\n${instruction}` }];
}

function nameOf(model: BaseChatModel): string {
  const params = model._identifyingParams();
  for (const key of ["model_name", "modelName", "model"]) {
    if (typeof params[key] === "string" && params[key]) return params[key];
  }
  return model._llmType();
}

function usageOf(meta: UsageMetadata | undefined, prompt: ChatMessage[], text: string): TokenUsage {
  if (meta) return { promptTokens: meta.input_tokens, completionTokens: meta.output_tokens };
  return {
    promptTokens: countTokens(prompt.map((m) => m.content).join("\n")),
    completionTokens: countTokens(text),
  };
}

/**
 * Lets any LangChain chat model (ChatOpenAI, ChatOllama, ChatAnthropic...) serve as a kgrag
 * ChatModel. Retries, rate limits, temperature and token limits are left to the LangChain model's
 * own settings (its caller retries; its constructor fixes sampling).
 */
export class LangChainChatModel implements ChatModel {
  readonly model: string;

  constructor(
    private readonly lc: BaseChatModel,
    options: LangChainChatOptions = {},
  ) {
    this.model = options.model ?? nameOf(lc);
  }

  /** OpenAI-style models list `response_format` among the call options they accept. */
  get supportsResponseFormat(): boolean {
    return this.lc.callKeys.includes("response_format");
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { messages, options } = this.prepare(request);
    const input = await toLangChain(messages);
    if (request.onToken) return this.stream(input, options, messages, request.onToken);
    const reply = await this.lc.invoke(input, options);
    return {
      text: reply.text,
      usage: usageOf(reply.usage_metadata, messages, reply.text),
      cached: false,
      truncated: stoppedAtLimit(reply.response_metadata),
    };
  }

  private prepare(request: ChatRequest): { messages: ChatMessage[]; options: StructuredCallOptions } {
    const options: StructuredCallOptions = request.signal ? { signal: request.signal } : {};
    const spec = request.jsonSchema;
    if (!spec) return { messages: request.messages, options };
    if (!this.supportsResponseFormat) {
      return { messages: withJsonInstruction(request.messages, spec.schema), options };
    }
    options.response_format = {
      type: "json_schema",
      json_schema: { name: spec.name, schema: spec.schema, strict: false },
    };
    return { messages: request.messages, options };
  }

  private async stream(
    input: BaseMessage[],
    options: StructuredCallOptions,
    prompt: ChatMessage[],
    onToken: (delta: string) => void,
  ): Promise<ChatResponse> {
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await this.lc.stream(input, options)) {
      if (chunk.text) onToken(chunk.text);
      whole = whole ? whole.concat(chunk) : chunk;
    }
    const text = whole?.text ?? "";
    return {
      text,
      usage: usageOf(whole?.usage_metadata, prompt, text),
      cached: false,
      truncated: stoppedAtLimit(whole?.response_metadata),
    };
  }
}

/**
 * Whether a reply stopped at its output limit, as OpenAI ("length"), Anthropic ("max_tokens"),
 * Ollama ("length") and Gemini ("MAX_TOKENS") report it. Streamed metadata is concatenated chunk by
 * chunk, so a reason repeated across chunks arrives repeated ("lengthlength"): the end is read.
 */
export function stoppedAtLimit(metadata: Record<string, unknown> | undefined): boolean {
  const reason =
    metadata?.finish_reason ?? metadata?.stop_reason ?? metadata?.done_reason ?? metadata?.finishReason;
  if (typeof reason !== "string") return false;
  const normal = reason.toLowerCase();
  return normal.endsWith("length") || normal.endsWith("max_tokens");
}
