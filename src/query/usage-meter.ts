import type { ChatModel, ChatRequest, ChatResponse } from "../llm/chat-model.js";

/**
 * Counts one query's LLM use. The workspace UsageTracker totals the whole process, which would
 * mix queries that run side by side (batch mode), so each query wraps the model it uses.
 */
export class MeteredChat implements ChatModel {
  llmCalls = 0;
  promptTokens = 0;
  completionTokens = 0;

  constructor(private readonly inner: ChatModel) {}

  get model(): string {
    return this.inner.model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const response = await this.inner.chat(request);
    // Cache hits cost nothing, so they are not counted, as in UsageTracker.totals().
    if (!response.cached) {
      this.llmCalls += 1;
      this.promptTokens += response.usage.promptTokens;
      this.completionTokens += response.usage.completionTokens;
    }
    return response;
  }

  usage(): { llmCalls: number; promptTokens: number; completionTokens: number } {
    return {
      llmCalls: this.llmCalls,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
    };
  }
}

export const NO_USAGE = { llmCalls: 0, promptTokens: 0, completionTokens: 0 };
