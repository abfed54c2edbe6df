/** A pipeline step's count as the job process last reported it. */
export interface StepCount {
  done: number;
  total: number;
}

/**
 * The parts of an index run in pipeline order, each with its share of a job's time and the steps
 * it is made of (chunk vectors are embedded while extraction runs, so they count with it). The
 * shares are rough: extraction dominates with a model, reports and embeddings offline.
 */
const PHASES: { weight: number; steps: RegExp }[] = [
  { weight: 5, steps: /^register$/ },
  { weight: 50, steps: /^(extract|embed chunks)$/ },
  { weight: 10, steps: /^summarize$/ },
  { weight: 15, steps: /^(embed (entities|relationships)|full-text index|vector index .*)$/ },
  // The reports' vectors are embedded once every report is written: a phase of their own, or the
  // reports' phase would read as done (the bar at its cap) before their embedding started.
  { weight: 15, steps: /^community reports$/ },
  { weight: 5, steps: /^embed communities$/ },
];

const TOTAL_WEIGHT = PHASES.reduce((sum, phase) => sum + phase.weight, 0);

/**
 * The most a running job reports: work after its last counted step (the steps that report no
 * count, the documents' statuses) is not measured, and a bar full while the job still runs reads
 * as done. The job queue sets 1 when the job is done.
 */
const RUNNING_MAX = 0.99;

/**
 * How far a job is, 0 to 1, from the steps its process reported so far: each phase weighs its
 * share, counted by its steps' done of total; a phase that never started but a later one did had
 * nothing to do (a delete extracts nothing) and counts as done. Steps of no phase are left out.
 * Below 1 however far the steps are (see RUNNING_MAX).
 */
export function overallProgress(steps: ReadonlyMap<string, StepCount>): number {
  const fractions = PHASES.map((phase) => phaseFraction(phase.steps, steps));
  const lastStarted = fractions.findLastIndex((fraction) => fraction !== undefined);
  const sum = PHASES.reduce((total, phase, i) => {
    const fraction = fractions[i] ?? (i < lastStarted ? 1 : 0);
    return total + phase.weight * fraction;
  }, 0);
  return Math.min(RUNNING_MAX, sum / TOTAL_WEIGHT);
}

/** The share done of the phase's steps, or undefined when none of them started. */
function phaseFraction(pattern: RegExp, steps: ReadonlyMap<string, StepCount>): number | undefined {
  let done = 0;
  let total = 0;
  let started = false;
  for (const [step, count] of steps) {
    if (!pattern.test(step)) continue;
    started = true;
    done += Math.min(count.done, count.total);
    total += count.total;
  }
  if (!started) return undefined;
  // Steps that started with nothing to do (a total of 0) are done.
  return total === 0 ? 1 : done / total;
}
