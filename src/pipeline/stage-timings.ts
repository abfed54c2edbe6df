import { performance } from "node:perf_hooks";

/**
 * Wall time per index stage, in milliseconds, as the run measured it: register, extract (with
 * `extract.extractor`, the time spent inside the extractor: the NLP offline, and `extract.merge`,
 * planning and committing merges), resolve, summarize, embed, communities, reports. A stage that
 * did not run is absent. With a model, extraction calls overlap: `extract.extractor` then adds up
 * calls in flight together and may exceed `extract`.
 */
export type StageTimings = Record<string, number>;

/** Adds up the time of named stages (a stage run twice, or in pieces, is summed). */
export class StageClock {
  private readonly totals: StageTimings = {};

  add(stage: string, ms: number): void {
    this.totals[stage] = (this.totals[stage] ?? 0) + ms;
  }

  async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  /** Whole milliseconds, in the order the stages first ran. */
  snapshot(): StageTimings {
    return Object.fromEntries(Object.entries(this.totals).map(([stage, ms]) => [stage, Math.round(ms)]));
  }
}
