import { z } from "zod";

export const JOB_KINDS = ["index", "delete", "reindex"] as const;
export const JOB_STATUSES = ["queued", "running", "done", "failed", "interrupted"] as const;

/** A background job as the API shows it (see docs/api.md). */
export const JobSchema = z.object({
  id: z.string(),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  stage: z.string(),
  done: z.number(),
  total: z.number(),
  /** The whole job's progress, 0 to 1 (`done`/`total` are the current step's); 0 in jobs saved before it. */
  progress: z.number().min(0).max(1).default(0),
  message: z.string().optional(),
  errors: z.array(
    z.object({ documentId: z.string().optional(), file: z.string().optional(), message: z.string() }),
  ),
  documents: z.array(z.string()),
  /** An upload's file names (index jobs of uploaded files), so a client can say what the job reads. */
  files: z.array(z.string()).optional(),
  /**
   * Document titles by id (ids are often hashes): of the texts an index job of raw texts reads, and
   * of the document a delete or re-index works on, so a client names it after it is gone.
   */
  titles: z.record(z.string(), z.string()).optional(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
});
export type Job = z.infer<typeof JobSchema>;
export type JobError = Job["errors"][number];

const MetadataSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** What a job does; kept on disk until the job ends, so a restart can run it again. */
export const JobSpecSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("index"),
    /** Absolute paths of uploaded files inside the workspace's upload folder. */
    files: z.array(z.string()).default([]),
    texts: z
      .array(
        z.object({
          id: z.string(),
          title: z.string(),
          text: z.string(),
          metadata: MetadataSchema.optional(),
        }),
      )
      .default([]),
  }),
  z.object({ kind: z.literal("delete"), docIds: z.array(z.string()) }),
  z.object({ kind: z.literal("reindex"), docId: z.string() }),
]);
export type JobSpec = z.infer<typeof JobSpecSchema>;

/** Messages from the process that runs a job to the server. */
export type WorkerMessage =
  | { type: "progress"; stage: string; done: number; total: number; message?: string }
  | {
      type: "finished";
      documents: string[];
      errors: JobError[];
      message: string;
      /**
       * Uploaded files no document comes from any more (deleted, or an empty file): the server
       * removes each unless a job still queued will read it (uploaded again meanwhile).
       */
      unusedUploads?: string[];
    }
  /**
   * `busy`: another process held the workspace's writer lock (a CLI run, a job process left behind).
   * `detail`: for the server's log only (a dead job process's stderr).
   */
  | { type: "failed"; message: string; busy?: boolean; detail?: string }
  /** The job stopped at a safe point when asked (the server stopping); a run again resumes it. */
  | { type: "interrupted"; message: string };

/** What the server sends the job process to start it. */
export interface WorkerStart {
  workspace: string;
  spec: JobSpec;
}

/** What the server sends the job process to stop its job at the next safe point. */
export interface WorkerStop {
  type: "stop";
}
