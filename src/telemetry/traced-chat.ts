import { type Span, trace } from "@opentelemetry/api";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/chat-model.js";
import type { RetryEvent } from "../llm/retry.js";
import { inSpan, SPANS } from "./spans.js";

/** Retries seen under each model-call span (the retry loop runs inside the wrapped model). */
const retriesBySpan = new WeakMap<Span, number>();

/**
 * One span per model call with its stage, model, tokens, whether the workspace cache answered, and
 * its retries (attribute names follow the OpenTelemetry GenAI conventions where they exist).
 */
export class TracedChatModel implements ChatModel {
  constructor(private readonly inner: ChatModel) {}

  get model(): string {
    return this.inner.model;
  }

  chat(request: ChatRequest): Promise<ChatResponse> {
    const attributes = {
      "kgrag.stage": request.stage,
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": this.inner.modelFor?.(request.stage) ?? this.inner.model,
    };
    return inSpan(SPANS.chat, attributes, async (span) => {
      const response = await this.inner.chat(request);
      span.setAttributes({
        "gen_ai.usage.input_tokens": response.usage.promptTokens,
        "gen_ai.usage.output_tokens": response.usage.completionTokens,
        "kgrag.llm.cache_hit": response.cached === true,
        "kgrag.llm.retries": retriesBySpan.get(span) ?? 0,
        "kgrag.llm.truncated": response.truncated === true,
      });
      return response;
    });
  }
}

/** The retry loop's hook: an event on the current model-call span, and one more retry counted. */
export function recordRetry(event: RetryEvent): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  retriesBySpan.set(span, (retriesBySpan.get(span) ?? 0) + 1);
  span.addEvent("retry", { attempt: event.attempt, delay_ms: event.delayMs, reason: event.reason });
}
