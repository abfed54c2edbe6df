import type { Stage, TokenUsage } from "./chat-model.js";

export interface StageUsage {
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
}

/** Requests sent to the embedding model and their input tokens. */
export interface EmbeddingUsage {
  requests: number;
  tokens: number;
}

/** Where an embedder reports each request it sent: the UsageTracker, or a test's own. */
export interface EmbeddingUsageSink {
  recordEmbedding(requests: number, tokens: number): void;
}

/** Token usage totalled per pipeline stage, so users see what extraction or reports cost. */
export class UsageTracker implements EmbeddingUsageSink {
  private readonly byStage = new Map<Stage, StageUsage>();
  private readonly embeddingTotals: EmbeddingUsage = { requests: 0, tokens: 0 };

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

  /** Embedding requests are counted apart from chat calls: they have no stage and no completion. */
  recordEmbedding(requests: number, tokens: number): void {
    this.embeddingTotals.requests += requests;
    this.embeddingTotals.tokens += tokens;
  }

  embedding(): EmbeddingUsage {
    return { ...this.embeddingTotals };
  }

  /** A copy of the totals per stage so far: what `stagesSince` subtracts to give one run's share. */
  stages(): Partial<Record<Stage, StageUsage>> {
    return Object.fromEntries([...this.byStage].map(([stage, usage]) => [stage, { ...usage }]));
  }

  /**
   * The calls made since `before` (an earlier `stages()`), per stage: the tracker totals the whole
   * instance, earlier runs and queries too. Stages without a call since are left out.
   */
  stagesSince(before: Partial<Record<Stage, StageUsage>>): Partial<Record<Stage, StageUsage>> {
    const since: Partial<Record<Stage, StageUsage>> = {};
    for (const [stage, now] of this.byStage) {
      const then = before[stage];
      const delta: StageUsage = {
        calls: now.calls - (then?.calls ?? 0),
        cachedCalls: now.cachedCalls - (then?.cachedCalls ?? 0),
        promptTokens: now.promptTokens - (then?.promptTokens ?? 0),
        completionTokens: now.completionTokens - (then?.completionTokens ?? 0),
      };
      if (delta.calls > 0 || delta.cachedCalls > 0) since[stage] = delta;
    }
    return since;
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
