/** The job cards a reader put away, kept in this browser (localStorage) per workspace. */
import type { ListedJob } from "./job-list";

const DISMISSED_STORAGE = "kgrag.dismissedJobs";

/** The finished jobs dismissed in this browser, per workspace (a reload keeps them dismissed). */
export function loadDismissed(workspace: string): Set<string> {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(`${DISMISSED_STORAGE}.${workspace}`) ?? "[]");
    return new Set(Array.isArray(saved) ? saved.filter((id): id is string => typeof id === "string") : []);
  } catch {
    return new Set();
  }
}

/**
 * Saves the dismissed ids, keeping only those of jobs the server still lists (`listed`): a job
 * gone from its most-recent-first list never comes back, so the saved list stays small.
 */
export function saveDismissed(
  workspace: string,
  dismissed: ReadonlySet<string>,
  listed: readonly ListedJob[],
): void {
  const kept = listed.filter((job) => dismissed.has(job.id)).map((job) => job.id);
  localStorage.setItem(`${DISMISSED_STORAGE}.${workspace}`, JSON.stringify(kept));
}
