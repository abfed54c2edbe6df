import { StageClock } from "../../src/pipeline/stage-timings.js";
import { processCpuSeconds } from "./process-cpu.js";

/** CPU seconds one stage used, in this process and in the server (when its pid is known). */
export interface StageCpuFigures {
  kgrag: number;
  server?: number;
}

/**
 * Charges every timed index stage (StageClock.time) the CPU this process and the server used while
 * it ran: on a busy machine wall time per stage mostly measures the neighbours. Stages that overlap
 * (chunk embedding beside extraction, a merge inside extraction) are each charged what they share.
 * Patches the StageClock prototype until `stop` is called.
 */
export class StageCpu {
  private readonly totals = new Map<string, StageCpuFigures>();
  private readonly original = StageClock.prototype.time;

  private constructor(private readonly serverPid: number | undefined) {}

  static attach(serverPid?: number): StageCpu {
    const recorder = new StageCpu(serverPid);
    const original = recorder.original;
    StageClock.prototype.time = async function <T>(
      this: StageClock,
      stage: string,
      work: () => Promise<T>,
    ): Promise<T> {
      const started = recorder.sample();
      try {
        return (await original.call(this, stage, work)) as T;
      } finally {
        recorder.charge(stage, started);
      }
    };
    return recorder;
  }

  stop(): void {
    StageClock.prototype.time = this.original;
  }

  /** CPU seconds per stage, in the order the stages first ran. */
  figures(): Record<string, StageCpuFigures> {
    return Object.fromEntries(this.totals);
  }

  private sample(): StageCpuFigures {
    const own = process.cpuUsage();
    const server = this.serverPid === undefined ? undefined : processCpuSeconds(this.serverPid);
    return { kgrag: (own.user + own.system) / 1e6, ...(server === undefined ? {} : { server }) };
  }

  private charge(stage: string, started: StageCpuFigures): void {
    const now = this.sample();
    const total = this.totals.get(stage) ?? { kgrag: 0 };
    total.kgrag += now.kgrag - started.kgrag;
    if (now.server !== undefined && started.server !== undefined) {
      total.server = (total.server ?? 0) + now.server - started.server;
    }
    this.totals.set(stage, total);
  }
}
