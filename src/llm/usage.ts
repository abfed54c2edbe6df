import type { Stage, TokenUsage } from "./chat-model.js";

export interface StageUsage {
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
}

/** Token usage totalled per pipeline stage, so users see what extraction or reports cost. */
export class UsageTracker {
  private readonly byStage = new Map<Stage, StageUsage>();

  record(stage: Stage, usage: TokenUsage, cached: boolean): void {
    const entry = this.byStage.get(stage) ?? {
      calls: 0,
      cachedCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
    };
    if (cached) entry.cachedCalls += 1;
    else {
      entry.calls += 1;
      entry.promptTokens += usage.promptTokens;
      entry.completionTokens += usage.completionTokens;
    }
    this.byStage.set(stage, entry);
  }

  stages(): Partial<Record<Stage, StageUsage>> {
    return Object.fromEntries(this.byStage);
  }

  /** Calls that reached the model (cache hits excluded). */
  totals(): StageUsage {
    const total: StageUsage = { calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0 };
    for (const s of this.byStage.values()) {
      total.calls += s.calls;
      total.cachedCalls += s.cachedCalls;
      total.promptTokens += s.promptTokens;
      total.completionTokens += s.completionTokens;
    }
    return total;
  }
}
