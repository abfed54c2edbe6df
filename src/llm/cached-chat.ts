import type { GraphStore } from "../storage/graph-store.js";
import { hashJson } from "../util/hash.js";
import type { ChatModel, ChatRequest, ChatResponse } from "./chat-model.js";
import { stripReasoning } from "./json-reply.js";
import type { UsageTracker } from "./usage.js";

export type LlmCache = Pick<GraphStore, "getLlmCache" | "putLlmCache">;

/** The parts of a request that decide the answer; callbacks and the stage (a key column) are left out. */
export function promptHash(request: ChatRequest): string {
  const { messages, jsonSchema, temperature, maxTokens } = request;
  return hashJson({ messages, jsonSchema, temperature, maxTokens });
}

/**
 * Puts the workspace LLM cache and per-stage usage totals in front of any chat model, so a re-run
 * after a crash or a delete repeats no call. Cache hits are counted apart from real calls. Every
 * answer loses its `<think>` reasoning block here, whatever the stage.
 */
export class CachedChatModel implements ChatModel {
  readonly model: string;

  constructor(
    private readonly inner: ChatModel,
    private readonly cache: LlmCache,
    private readonly usage: UsageTracker,
  ) {
    this.model = inner.model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const hash = promptHash(request);
    const hit = await this.cache.getLlmCache(request.stage, this.model, hash);
    if (hit && this.accepts(request, hit.response)) {
      const usage = { promptTokens: hit.promptTokens, completionTokens: hit.completionTokens };
      this.usage.record(request.stage, usage, true);
      request.onToken?.(hit.response);
      return { text: hit.response, usage, cached: true };
    }
    const onToken = request.onToken && withoutReasoning(request.onToken);
    const sent = await this.inner.chat({ ...request, onToken });
    // Reasoning is never part of the answer, for any stage: it is neither cached nor parsed.
    const answer = { ...sent, text: stripReasoning(sent.text).trim() };
    // A cut-off answer would be replayed cut off on every later run; only complete ones are kept.
    if (!answer.truncated && this.accepts(request, answer.text)) {
      await this.cache.putLlmCache({
        stage: request.stage,
        model: this.model,
        promptHash: hash,
        response: answer.text,
        promptTokens: answer.usage.promptTokens,
        completionTokens: answer.usage.completionTokens,
      });
    }
    this.usage.record(request.stage, answer.usage, false);
    return { ...answer, cached: false };
  }

  private accepts(request: ChatRequest, text: string): boolean {
    return request.acceptAnswer ? request.acceptAnswer(text) : true;
  }
}

const REASONING_TAGS = ["<think>", "</think>"];

/**
 * A token listener that never sees a reasoning block: text inside `<think>` blocks is held back,
 * and so is a tail that may be the start of a tag ("<th", "</thi"), until the next tokens tell.
 * Reasoning ended by a `</think>` alone cannot be told from the answer until that tag comes, so it
 * is shown; the answer after the tag is then shown whole, not from where the reasoning stopped.
 */
function withoutReasoning(onToken: (delta: string) => void): (delta: string) => void {
  let seen = "";
  let shown = "";
  return (delta) => {
    seen += delta;
    const visible = stripReasoning(seen).trimStart();
    if (!visible.startsWith(shown)) shown = "";
    const end = visible.length - tagPrefix(visible);
    if (end > shown.length) {
      onToken(visible.slice(shown.length, end));
      shown = visible.slice(0, end);
    }
  };
}

/** How many final characters of `text` could begin a reasoning tag. */
function tagPrefix(text: string): number {
  const tail = text.slice(-Math.max(...REASONING_TAGS.map((tag) => tag.length))).toLowerCase();
  for (let n = tail.length; n > 0; n--) {
    const end = tail.slice(-n);
    if (REASONING_TAGS.some((tag) => tag.length > n && tag.startsWith(end))) return n;
  }
  return 0;
}
