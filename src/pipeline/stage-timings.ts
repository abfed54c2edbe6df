import { performance } from "node:perf_hooks";

/**
 * Wall time per index stage, in milliseconds, as the run measured it: register, extract (with
 * `extract.extractor`, the time spent inside the extractor: the NLP offline, and `extract.merge`,
 * planning and committing merges), resolve, summarize, embed, communities, reports. A stage that
 * did not run is absent. Calls of one stage that overlap (extractions in flight together, with a
 * model or on the built-ins' thread) count once: a stage's time is how long at least one of its
 * calls was running, never more than the run's wall time.
 */
export type StageTimings = Record<string, number>;

/**
 * Adds up the time of named stages: a stage run twice, or in pieces, is summed; pieces that run
 * at the same time count once (the span from the first one's start to the last one's end).
 */
export class StageClock {
  private readonly totals: StageTimings = {};
  /** Per stage, calls running now and when the first of them started. */
  private readonly running = new Map<string, { calls: number; since: number }>();

  add(stage: string, ms: number): void {
    this.totals[stage] = (this.totals[stage] ?? 0) + ms;
  }

  async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const now = this.running.get(stage);
    if (now) now.calls += 1;
    else this.running.set(stage, { calls: 1, since: performance.now() });
    try {
      return await work();
    } finally {
      const span = this.running.get(stage);
      if (span && --span.calls === 0) {
        this.running.delete(stage);
        this.add(stage, performance.now() - span.since);
      }
    }
  }

  /** Whole milliseconds, in the order the stages first ran. */
  snapshot(): StageTimings {
    return Object.fromEntries(Object.entries(this.totals).map(([stage, ms]) => [stage, Math.round(ms)]));
  }
}
