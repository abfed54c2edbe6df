/** What a job card says of a job (a plain module: the unit tests read it without the DOM). */
export interface JobSummary {
  kind: string;
  status: string;
  done: number;
  total: number;
  /** The whole job's progress, 0 to 1, from servers that report it. */
  progress?: number;
  documents: string[];
  files?: string[];
  /** The titles of the texts an index job of raw texts reads, by id. */
  titles?: Record<string, string>;
}

const NAMES_SHOWN = 3;

/** "a.txt, b.md and 2 more" */
function someNames(names: string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(", ");
  const rest = names.length - NAMES_SHOWN;
  return rest > 0 ? `${shown} and ${rest} more` : shown;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * What the job does, in words: "Index 2 files: a.txt, b.md", "Delete Lisbon". `titleOf` names a
 * document by its id when the view knows it.
 */
export function jobHeading(
  job: JobSummary,
  titleOf: (id: string) => string | undefined = () => undefined,
): string {
  // A text's title as the job gave it, else the view's, else its id (often a hash).
  // By id: a finished job's documents come back in another order (added, updated, ...).
  const docs = job.documents.map((id) => job.titles?.[id] ?? titleOf(id) ?? id);
  if (job.kind === "index" && job.files && job.files.length > 0)
    return `Index ${count(job.files.length, "file")}: ${someNames(job.files)}`;
  const verb = job.kind === "delete" ? "Delete" : job.kind === "reindex" ? "Re-index" : "Index";
  if (docs.length === 0) return verb;
  if (docs.length <= NAMES_SHOWN) return `${verb} ${someNames(docs)}`;
  return `${verb} ${count(docs.length, "document")}: ${someNames(docs)}`;
}

/** The bar's percentage: the whole job's progress, not the current step's done of total. */
export function jobPercent(job: JobSummary): number {
  if (job.status === "done") return 100;
  if (job.progress !== undefined) return Math.round(100 * job.progress);
  // A server from before the overall progress: the step's count is all there is.
  return job.total > 0 ? Math.round((100 * job.done) / job.total) : 0;
}
