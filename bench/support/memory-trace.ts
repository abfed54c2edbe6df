import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { ProgressReporter } from "../../src/util/progress.js";

/** One look at the process: its RSS and high-water mark (every thread), the main thread's heap. */
interface MemorySample {
  atS: number;
  rssMb: number;
  /** VmHWM: the highest RSS so far, so a peak between two samples still shows in the next one. */
  peakMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** OS threads of the process (worker threads add about six each: their own V8 and libuv). */
  threads: number;
  event: string;
  /** The progress steps running at the time. */
  steps: string[];
}

const MB = 2 ** 20;

function statusMb(status: string, field: string): number {
  const match = status.match(new RegExp(`${field}:\\s+(\\d+)`));
  return match ? Math.round(Number(match[1]) / 1024) : 0;
}

/**
 * Samples memory every `everyMs` and at every progress step's start and finish (the main thread
 * only samples between its own tasks, so the step events and VmHWM catch what a tick misses).
 * `peaksBySteps` names where the high-water mark rose to its last value: the run's peak.
 */
export class MemoryTrace {
  readonly progress: ProgressReporter;
  private readonly samples: MemorySample[] = [];
  private readonly steps = new Set<string>();
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 250) {
    this.progress = {
      // Sampled before the change of steps: a rise since the last sample happened under the old set.
      start: (step) => {
        this.sample(`start ${step}`);
        this.steps.add(step);
      },
      advance() {},
      finish: (step) => {
        this.sample(`finish ${step}`);
        this.steps.delete(step);
      },
      info() {},
    };
    this.timer = setInterval(() => this.sample("tick"), everyMs);
    this.timer.unref();
  }

  sample(event: string): void {
    const status = readFileSync("/proc/self/status", "utf8");
    const usage = process.memoryUsage();
    this.samples.push({
      atS: +((performance.now() - this.started) / 1000).toFixed(1),
      rssMb: statusMb(status, "VmRSS"),
      peakMb: statusMb(status, "VmHWM"),
      heapUsedMb: Math.round(usage.heapUsed / MB),
      heapTotalMb: Math.round(usage.heapTotal / MB),
      externalMb: Math.round(usage.external / MB),
      arrayBuffersMb: Math.round(usage.arrayBuffers / MB),
      threads: readdirSync("/proc/self/task").length,
      event,
      steps: [...this.steps],
    });
  }

  /** The highest RSS seen while each set of steps ran together, in the order the sets first ran. */
  peaksBySteps(): { steps: string; peakMb: number; mainHeapMb: number; threads: number }[] {
    const bySteps = new Map<string, { steps: string; peakMb: number; mainHeapMb: number; threads: number }>();
    let previousPeak = 0;
    for (const sample of this.samples) {
      // A rise of the high-water mark happened since the last sample, under the steps of this one.
      const seen = Math.max(sample.rssMb, sample.peakMb > previousPeak ? sample.peakMb : 0);
      previousPeak = sample.peakMb;
      const steps = sample.steps.join(" + ") || "(between steps)";
      const row = bySteps.get(steps);
      if (!row || seen > row.peakMb) {
        bySteps.set(steps, { steps, peakMb: seen, mainHeapMb: sample.heapTotalMb, threads: sample.threads });
      }
    }
    return [...bySteps.values()];
  }

  /** Stops sampling and writes every sample as tab-separated lines. */
  close(file: string): void {
    clearInterval(this.timer);
    this.sample("end");
    const header =
      "atS\trssMb\tpeakMb\theapUsedMb\theapTotalMb\texternalMb\tarrayBuffersMb\tthreads\tevent\tsteps";
    const lines = this.samples.map((s) =>
      [
        s.atS,
        s.rssMb,
        s.peakMb,
        s.heapUsedMb,
        s.heapTotalMb,
        s.externalMb,
        s.arrayBuffersMb,
        s.threads,
        s.event,
        s.steps.join("|"),
      ].join("\t"),
    );
    writeFileSync(file, `${header}\n${lines.join("\n")}\n`);
  }
}
