import type { KgragConfig } from "../config.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/chat-model.js";
import { stageSettings } from "../llm/stage-models.js";
import { tokenCost } from "../llm/usage-cost.js";

/** One query's model use: calls that reached the model, their tokens and their cost at the configured prices. */
export interface QueryUsage {
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** At each stage's `price` (config `llm.price`, `stages.*.price`); 0 without one. */
  cost: number;
}

/**
 * Counts one query's LLM use. The workspace UsageTracker totals the whole process, which would
 * mix queries that run side by side (batch mode), so each query wraps the model it uses.
 */
export class MeteredChat implements ChatModel {
  private readonly counted: QueryUsage = { ...NO_USAGE };

  constructor(
    private readonly inner: ChatModel,
    private readonly config: KgragConfig,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const response = await this.inner.chat(request);
    // Cache hits cost nothing, so they are not counted, as in UsageTracker.totals().
    if (!response.cached) {
      const { promptTokens, completionTokens } = response.usage;
      this.counted.llmCalls += 1;
      this.counted.promptTokens += promptTokens;
      this.counted.completionTokens += completionTokens;
      const price = stageSettings(this.config, request.stage)?.price;
      this.counted.cost += tokenCost(price, promptTokens, completionTokens);
    }
    return response;
  }

  usage(): QueryUsage {
    return { ...this.counted };
  }
}

export const NO_USAGE: QueryUsage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, cost: 0 };
