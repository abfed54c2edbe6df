import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import type { KgragConfig } from "../config.js";
import { countTokens } from "../util/tokens.js";
import type { ChatModel, ChatRequest, ChatResponse, TokenUsage } from "./chat-model.js";
import { withDeadline } from "./deadline.js";
import {
  EndpointQuirks,
  type FormatLevel,
  rejectsMaxTokens,
  rejectsResponseFormat,
  responseFormatFor,
} from "./endpoint-quirks.js";
import { FollowUpFirstLimit } from "./follow-up-first.js";
import { RateLimiter } from "./rate-limiter.js";
import { STAGE_HEADER } from "./requests-sent.js";
import { type RetryTuning, withRetry } from "./retry.js";

/** The `llm` settings (or a stage's) as kgrag's client needs them: with the model to ask. */
export type LlmConfig = NonNullable<KgragConfig["llm"]> & { model: string };

type RequestBody = ChatCompletionCreateParamsNonStreaming;
type ApiUsage = ChatCompletion["usage"];
interface CallOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
}

export { STAGE_HEADER } from "./requests-sent.js";

/** What a request will count against a tokens-per-minute limit: its prompt and its output allowance. */
function estimatedTokens(request: ChatRequest): number {
  const prompt = countTokens(request.messages.map((m) => m.content).join("\n"));
  return prompt + (request.maxTokens ?? 0);
}

/** Endpoints that send no usage (some local servers) still get an honest estimate. */
function usageOf(api: ApiUsage | undefined, request: ChatRequest, text: string): TokenUsage {
  if (api) return { promptTokens: api.prompt_tokens, completionTokens: api.completion_tokens };
  const prompt = request.messages.map((m) => m.content).join("\n");
  return { promptTokens: countTokens(prompt), completionTokens: countTokens(text) };
}

/**
 * Chat over any OpenAI-compatible endpoint. Retries, Retry-After and timeouts are handled here
 * rather than by the client library so that the limits are ours and visible; all calls of one
 * instance share one concurrency limit, follow-ups served first.
 */
export class OpenAIChatModel implements ChatModel {
  readonly model: string;
  private readonly client: OpenAI;
  private readonly limit: FollowUpFirstLimit;
  private readonly quirks = new EndpointQuirks();

  private readonly limiter: RateLimiter;

  constructor(
    private readonly config: LlmConfig,
    private readonly tuning: RetryTuning = {},
    limiter?: RateLimiter,
  ) {
    this.model = config.model;
    this.limiter = limiter ?? new RateLimiter(config);
    this.limit = new FollowUpFirstLimit(config.concurrency);
    this.client = new OpenAI({
      baseURL: config.baseURL,
      // Local servers (Ollama, vLLM) accept any key; the client library insists on one.
      apiKey: config.apiKey ?? "not-needed",
      timeout: config.timeoutMs,
      maxRetries: 0,
    });
  }

  chat(request: ChatRequest): Promise<ChatResponse> {
    const label = `chat request (stage ${request.stage}, model ${this.model})`;
    return this.limit.run(
      () =>
        withRetry(() => this.attempt(request, label), {
          ...this.tuning,
          maxRetries: this.config.maxRetries,
          label,
          signal: request.signal,
        }),
      request.followUp,
    );
  }

  /** One attempt, re-sent at once (not counted as a retry) when the endpoint rejects a parameter. */
  private async attempt(request: ChatRequest, label: string): Promise<ChatResponse> {
    for (;;) {
      const format = this.quirks.format;
      const estimate = this.limiter.countsTokens ? estimatedTokens(request) : 0;
      await this.limiter.acquire(estimate, request.signal);
      try {
        const response = await withDeadline(
          label,
          this.config.timeoutMs,
          (signal) => this.send(request, format, { headers: { [STAGE_HEADER]: request.stage }, signal }),
          request.signal,
        );
        this.limiter.settle(estimate, response.usage.promptTokens + response.usage.completionTokens);
        return response;
      } catch (error) {
        this.limiter.observeFailure(error);
        if (!this.adaptTo(error, request, format)) throw error;
      }
    }
  }

  private adaptTo(error: unknown, request: ChatRequest, format: FormatLevel): boolean {
    if (request.jsonSchema && rejectsResponseFormat(error)) return this.quirks.downgradeFormat(format);
    if (request.maxTokens !== undefined && rejectsMaxTokens(error)) {
      return this.quirks.switchToMaxCompletionTokens();
    }
    return false;
  }

  private body(request: ChatRequest, format: FormatLevel): RequestBody {
    const body: RequestBody = {
      model: this.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: request.temperature,
      response_format: responseFormatFor(request.jsonSchema, format),
    };
    if (request.maxTokens !== undefined) body[this.quirks.maxTokensParam] = request.maxTokens;
    return body;
  }

  private async send(request: ChatRequest, format: FormatLevel, options: CallOptions): Promise<ChatResponse> {
    const body = this.body(request, format);
    if (request.onToken) return this.stream(request, body, options, request.onToken);
    const { data: completion, response } = await this.client.chat.completions
      .create(body, options)
      .withResponse();
    this.limiter.observe(response.headers);
    const choice = completion.choices[0];
    const text = choice?.message?.content ?? "";
    const truncated = choice?.finish_reason === "length";
    return { text, usage: usageOf(completion.usage, request, text), cached: false, truncated };
  }

  private async stream(
    request: ChatRequest,
    body: RequestBody,
    options: CallOptions,
    onToken: (delta: string) => void,
  ): Promise<ChatResponse> {
    const { data: stream, response } = await this.client.chat.completions
      .create({ ...body, stream: true, stream_options: { include_usage: true } }, options)
      .withResponse();
    this.limiter.observe(response.headers);
    // A retried stream starts over, so a listener may see the first tokens of a failed attempt again.
    let text = "";
    let usage: ApiUsage | undefined;
    let truncated = false;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) {
        text += delta;
        onToken(delta);
      }
      if (chunk.choices[0]?.finish_reason === "length") truncated = true;
      if (chunk.usage) usage = chunk.usage;
    }
    return { text, usage: usageOf(usage, request, text), cached: false, truncated };
  }
}
