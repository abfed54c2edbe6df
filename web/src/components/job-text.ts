/** What a job card says of a job (a plain module: the unit tests read it without the DOM). */
export interface JobSummary {
  kind: string;
  status: string;
  /** The step running, as the server names it ("extract", "embed chunks", ...). */
  stage?: string;
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

interface StepWords {
  step: RegExp;
  /** The step in words; a function of the match for steps named after something. */
  name: string | ((match: RegExpExecArray) => string);
  /** What the step's done/total count, one and many; none for steps without a count. */
  counts?: [string, string];
}

/** A vector index's namespace in the words the app uses for what it holds. */
const VECTOR_KINDS: Record<string, string> = {
  chunks: "passage",
  entities: "entity",
  relationships: "relationship",
  communities: "community report",
};

/** The steps of a job as the server names them, in the order an index run takes them. */
const STEPS: StepWords[] = [
  { step: /^queued$/, name: "Queued" },
  { step: /^starting$/, name: "Starting" },
  { step: /^waiting$/, name: "Waiting" },
  { step: /^register$/, name: "Reading documents", counts: ["document", "documents"] },
  { step: /^extract$/, name: "Extracting entities and relationships", counts: ["passage", "passages"] },
  { step: /^embed chunks$/, name: "Embedding passages", counts: ["passage", "passages"] },
  { step: /^summarize$/, name: "Summarizing descriptions", counts: ["description", "descriptions"] },
  { step: /^embed entities$/, name: "Embedding entities", counts: ["entity", "entities"] },
  {
    step: /^embed relationships$/,
    name: "Embedding relationships",
    counts: ["relationship", "relationships"],
  },
  { step: /^full-text index$/, name: "Updating the full-text index", counts: ["entry", "entries"] },
  {
    step: /^vector index (.+)$/,
    name: (m) => `Building the ${VECTOR_KINDS[m[1] ?? ""] ?? m[1]} vector index`,
    counts: ["vector", "vectors"],
  },
  { step: /^community reports$/, name: "Writing community reports", counts: ["report", "reports"] },
  { step: /^embed communities$/, name: "Embedding community reports", counts: ["report", "reports"] },
  { step: /^done$/, name: "Done" },
];

/** The step in words, and what its count counts when this app knows the step. */
function stepWords(stage: string): { name: string; counts?: [string, string] } {
  for (const words of STEPS) {
    const match = words.step.exec(stage);
    if (!match) continue;
    const name = typeof words.name === "string" ? words.name : words.name(match);
    return words.counts ? { name, counts: words.counts } : { name };
  }
  return { name: stage };
}

/**
 * The live step in words with what its count counts: "Extracting entities and relationships ·
 * 3 / 10 passages". A step this app does not know keeps the server's name beside a bare count.
 */
export function stepText(job: Pick<JobSummary, "stage" | "done" | "total">): string {
  const { name, counts } = stepWords(job.stage ?? "");
  // A finished job keeps its last step's count (9 / 9 community reports): beside "Done" it reads
  // as a count of the job's documents.
  if (job.total <= 0 || job.stage === "done") return name;
  const unit = counts ? ` ${counts[job.total === 1 ? 0 : 1]}` : "";
  const count = `${job.done} / ${job.total}${unit}`;
  return name ? `${name} · ${count}` : count;
}
