/** Which job cards the Documents view shows (a plain module: the unit tests read it without the DOM). */
export interface ListedJob {
  id: string;
  status: string;
}

/** Finished cards shown at once; the earlier ones wait behind "show N earlier jobs". */
export const FINISHED_SHOWN = 3;

export function isFinished(job: ListedJob): boolean {
  return job.status !== "queued" && job.status !== "running";
}

/**
 * The cards to show, most recent first: every job still going, and the `shown` most recent finished
 * ones not dismissed; `earlier` the other finished ones not dismissed, for the reader to open.
 */
export function jobsShown<T extends ListedJob>(
  jobs: readonly T[],
  dismissed: ReadonlySet<string>,
  shown = FINISHED_SHOWN,
): { shown: T[]; earlier: T[] } {
  const current: T[] = [];
  const earlier: T[] = [];
  let finished = 0;
  for (const job of jobs) {
    if (!isFinished(job)) current.push(job);
    else if (dismissed.has(job.id)) continue;
    else if (finished++ < shown) current.push(job);
    else earlier.push(job);
  }
  return { shown: current, earlier };
}
