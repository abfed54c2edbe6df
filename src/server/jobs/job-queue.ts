import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { activeWriter, WorkspaceBusyError } from "../../workspace/lock.js";
import { hideServerPaths } from "../server-paths.js";
import { overallProgress, type StepCount } from "./job-progress.js";
import type { JobRunner, Outcome } from "./job-runner.js";
import { type Job, JobSchema, type JobSpec, JobSpecSchema, type WorkerMessage } from "./job-types.js";

/** A write asked for while a job runs in the workspace: the job holds the workspace's writer lock. */
export class JobRunningError extends Error {
  constructor(readonly job: Job | undefined) {
    super(
      job
        ? `${/^[aeiou]/.test(job.kind) ? "An" : "A"} ${job.kind} job (${job.id}) is running in this workspace; retry when it ends (GET /api/v1/jobs/${job.id}).`
        : "A job is running in this workspace; retry when it ends.",
    );
    this.name = "JobRunningError";
  }
}

/** How often a job whose workspace another process is writing tries again. */
const BUSY_RETRY_MS = 1_000;

/** What an interrupted job says; its run again names what it resumed. */
const INTERRUPTED_MESSAGE = "the server stopped during this job; it was queued again";

/** Event name of "a job ended" (job ids are UUIDs, so it cannot clash with one). */
const FINISHED = "finished";

/**
 * The jobs of one workspace: queued, then run one at a time in a separate process. Jobs and their
 * inputs are kept in the workspace's server folder, so a restart finds the ones that had not
 * finished and runs them again (the library resumes what a job had committed).
 */
export class JobQueue {
  private readonly jobs = new Map<string, Job>();
  private readonly events = new EventEmitter();
  private readonly waiting: string[] = [];
  private running: Promise<void> | null = null;
  private runningId: string | null = null;
  /** The running job's pipeline steps as its process last reported them. */
  private steps = new Map<string, StepCount>();
  /**
   * Whether the running job's steps count towards its progress yet: a re-index first deletes the
   * document, and that delete's settling steps (embeddings, reports) would read as a finished index.
   */
  private countingSteps = true;
  /** Writes made by the server itself (hand curation), one at a time; no job starts meanwhile. */
  private writes: Promise<unknown> = Promise.resolve();
  private writing = 0;
  private closed = false;

  constructor(
    private readonly workspace: string,
    private readonly folder: string,
    private readonly runner: JobRunner,
    private readonly keptJobs: number,
    /** How long a job waits for another process's writer lock before it fails. */
    private readonly busyWaitMs: number,
  ) {
    this.events.setMaxListeners(0);
    mkdirSync(this.inputsFolder(), { recursive: true });
    this.restore();
  }

  /**
   * Queues a job; returns it at once. `titles` names the documents a delete or re-index works on
   * (an index job of raw texts takes its texts' titles), so a client can say which it is after they are gone.
   */
  add(spec: JobSpec, documents: string[] = [], titles: Record<string, string> = {}): Job {
    const textTitles =
      spec.kind === "index" ? Object.fromEntries(spec.texts.map((t) => [t.id, t.title])) : {};
    const named = { ...titles, ...textTitles };
    const job: Job = {
      id: randomUUID(),
      kind: spec.kind,
      status: "queued",
      stage: "queued",
      done: 0,
      total: 0,
      progress: 0,
      errors: [],
      documents,
      ...(spec.kind === "index" && spec.files.length > 0
        ? { files: spec.files.map((f) => basename(f)) }
        : {}),
      ...(Object.keys(named).length > 0 ? { titles: named } : {}),
      createdAt: new Date().toISOString(),
    };
    writeFileSync(this.inputFile(job.id), JSON.stringify(spec));
    this.jobs.set(job.id, job);
    this.waiting.push(job.id);
    this.save();
    this.pump();
    return { ...job };
  }

  /**
   * A delete or re-index of a document that a job still queued will do: that job, instead of a
   * second one (a double click, two tabs), which would only fail on a deleted document or extract
   * it twice. Only when that job is the last one pending for those documents (an upload queued
   * after it must not be undone by it) and has not started (a running re-index has read the file
   * already, and would miss an edit made since). Index jobs are never merged: their inputs differ.
   */
  addOnce(
    spec: Extract<JobSpec, { kind: "delete" | "reindex" }>,
    documents: string[],
    titles: Record<string, string> = {},
  ): Job {
    const touching = [...this.jobs.values()].filter(
      (job) =>
        (job.status === "queued" || job.status === "running") &&
        job.documents.some((id) => documents.includes(id)),
    );
    const last = touching.at(-1);
    const same =
      last?.status === "queued" && last.kind === spec.kind && sameMembers(last.documents, documents);
    return same ? { ...last } : this.add(spec, documents, titles);
  }

  get(id: string): Job | undefined {
    const job = this.jobs.get(id);
    return job && { ...job };
  }

  /** Most recent first. */
  list(): Job[] {
    return [...this.jobs.values()].reverse().map((j) => ({ ...j }));
  }

  /** Calls `listener` on every change of the job until it ends; returns the unsubscriber. */
  subscribe(id: string, listener: (job: Job) => void): () => void {
    const handler = (job: Job) => listener({ ...job });
    this.events.on(id, handler);
    return () => this.events.off(id, handler);
  }

  /** Calls `listener` whenever a job ends, however it ended. */
  onFinished(listener: (job: Job) => void): void {
    this.events.on(FINISHED, listener);
  }

  /**
   * Runs a write of the server's own between jobs: refused with JobRunningError while a job runs
   * (it holds the writer lock, and may run for long), queued behind other such writes, and no job
   * starts until it ends.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.running) {
      const job = this.runningId ? this.jobs.get(this.runningId) : undefined;
      throw new JobRunningError(job && { ...job });
    }
    this.writing += 1;
    const result = this.writes.then(work);
    this.writes = result.catch(() => undefined);
    try {
      return await result;
    } finally {
      this.writing -= 1;
      this.pump();
    }
  }

  /** Resolves when the queue is empty (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Stops taking jobs and asks the running one to stop at its next safe point: it ends
   * "interrupted" and runs again, resuming, when the server next starts. No job process outlives
   * the server to finish work the server would not know of.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) this.runner.stop(this.workspace);
    await this.idle();
  }

  private pump(): void {
    if (this.running || this.writing > 0 || this.closed) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.runningId = next;
    this.running = this.run(next).finally(() => {
      this.running = null;
      this.runningId = null;
      this.pump();
    });
  }

  private async run(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return;
    let spec: JobSpec;
    try {
      spec = JobSpecSchema.parse(JSON.parse(readFileSync(this.inputFile(id), "utf8")));
    } catch (error) {
      this.update(job, { status: "failed", message: `job input unreadable: ${(error as Error).message}` });
      return;
    }
    this.steps = new Map();
    this.countingSteps = spec.kind !== "reindex";
    this.update(job, { status: "running", stage: "starting", startedAt: new Date().toISOString() });
    const outcome = await this.runWaitingForWriter(job, spec);
    const finishedAt = new Date().toISOString();
    if (outcome.type === "interrupted") {
      this.log(job, outcome.message);
      // Its input stays: the next start queues the job again (see restore).
      this.update(job, { status: "interrupted", message: INTERRUPTED_MESSAGE, finishedAt });
      this.events.emit(FINISHED, { ...job });
      return;
    }
    if (outcome.type === "failed") {
      if (outcome.detail) this.log(job, `${outcome.message}: ${outcome.detail}`);
      const message = this.shown(job, outcome.message);
      const seeLog = outcome.detail ? "; the server's log (stderr) has the detail" : "";
      this.update(job, { status: "failed", message: `${message}${seeLog}`, finishedAt });
    } else {
      // What the job did, now that it is known: the ids named at submission were guesses from
      // file names (a JSONL file holds other ids; an empty file makes no document).
      const documents = outcome.documents;
      this.update(job, {
        status: "done",
        stage: "done",
        done: job.total,
        progress: 1,
        message: this.shown(job, outcome.message),
        errors: outcome.errors.map((error) => ({
          ...error,
          ...(error.file === undefined ? {} : { file: this.shown(job, error.file) }),
          message: this.shown(job, error.message),
        })),
        documents,
        finishedAt,
      });
    }
    if (outcome.type === "finished") this.removeUploads(outcome.unusedUploads ?? []);
    rmSync(this.inputFile(id), { force: true });
    this.events.emit(FINISHED, { ...job });
  }

  /**
   * Removes the uploads a finished job found no document comes from, but not one a queued job will
   * read: that name was uploaded again after the job was queued (a DELETE, then the same file sent
   * anew; two uploads of one name), and the file there now is the new upload. Synchronous from the
   * check to the removal: an upload saves its files and queues its job with no pause between (see
   * saveUploads), so none lands in between.
   */
  private removeUploads(paths: string[]): void {
    if (paths.length === 0) return;
    const wanted = new Set<string>();
    for (const id of this.waiting) {
      try {
        const spec = JobSpecSchema.parse(JSON.parse(readFileSync(this.inputFile(id), "utf8")));
        if (spec.kind === "index") for (const file of spec.files) wanted.add(resolve(file));
      } catch {
        // An input that cannot be read is a job that will fail without reading anything.
      }
    }
    for (const path of paths) if (!wanted.has(resolve(path))) rmSync(path, { force: true });
  }

  /**
   * Runs the job; while another process holds the workspace's writer lock (a `kgrag index` beside
   * the server, or the job process of a server killed mid-job, which ends on its own), it waits and
   * tries again for up to `busyWaitMs` instead of failing at once.
   */
  private async runWaitingForWriter(job: Job, spec: JobSpec) {
    const giveUpAt = Date.now() + this.busyWaitMs;
    for (;;) {
      const outcome =
        this.otherWriter() ??
        (await this.runner.run(this.workspace, spec, (message) => this.progress(job, message)));
      if (outcome.type !== "failed" || !outcome.busy || Date.now() >= giveUpAt) return outcome;
      // The server stops while the job waits: it has not started, so it runs on the next start.
      if (this.closed) return { type: "interrupted" as const, message: outcome.message };
      this.update(job, {
        stage: "waiting",
        message: `waiting for the workspace lock, held by another writer: ${this.shown(job, outcome.message)}`,
      });
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }

  /**
   * The lock another process holds (a `kgrag index`, the job process of a server killed mid-job)
   * as a busy outcome, found before a job process starts: the job says at once that it waits for
   * the lock, instead of "starting" while a process loads only to meet it.
   */
  private otherWriter(): Outcome | undefined {
    const writer = activeWriter(this.workspace);
    if (!writer) return undefined;
    const owner = writer === "unnamed" ? undefined : writer;
    return { type: "failed", busy: true, message: new WorkspaceBusyError(this.workspace, owner).message };
  }

  private progress(job: Job, message: WorkerMessage): void {
    if (message.type !== "progress") return;
    if (message.stage === "info") {
      this.update(job, {
        message: message.message === undefined ? undefined : this.shown(job, message.message),
      });
      return;
    }
    if (!this.countingSteps && message.stage === "register") this.countingSteps = true;
    if (!this.countingSteps) {
      this.update(job, { stage: message.stage, done: message.done, total: message.total });
      return;
    }
    this.steps.set(message.stage, { done: message.done, total: message.total });
    // Never backwards: steps overlap, and one that starts late adds to the work still ahead.
    const progress = Math.max(job.progress, overallProgress(this.steps));
    this.update(job, { stage: message.stage, done: message.done, total: message.total, progress });
  }

  /**
   * What API clients read of a job's text: no server path (see hideServerPaths). The text as it was
   * goes to the server's log when that hid something.
   */
  private shown(job: Job, text: string): string {
    const shown = hideServerPaths(text, this.workspace);
    if (shown !== text) this.log(job, text);
    return shown;
  }

  private log(job: Job, text: string): void {
    process.stderr.write(`kgrag serve: ${job.kind} job ${job.id} (${this.workspace}): ${text}\n`);
  }

  private update(job: Job, changes: Partial<Job>): void {
    Object.assign(job, changes);
    this.save();
    this.events.emit(job.id, job);
  }

  /**
   * Jobs from an earlier run: the one that was running is marked interrupted and queued again, as
   * is one the server stopped at a safe point (its input kept for this).
   */
  private restore(): void {
    let saved: Job[] = [];
    try {
      saved = JobSchema.array().parse(JSON.parse(readFileSync(this.jobsFile(), "utf8")));
    } catch {
      return;
    }
    const again: Job[] = [];
    for (const job of saved) {
      // Saved before jobs had an overall progress: a done one was all the way.
      if (job.status === "done") job.progress = 1;
      this.jobs.set(job.id, job);
      if (job.status === "queued") this.waiting.push(job.id);
      if (job.status === "running") {
        job.status = "interrupted";
        job.message = INTERRUPTED_MESSAGE;
        job.finishedAt = new Date().toISOString();
      }
      if (job.status === "interrupted" && existsSync(this.inputFile(job.id))) again.push(job);
    }
    for (const job of again) this.requeue(job);
    this.save();
    this.pump();
  }

  private requeue(job: Job): void {
    try {
      const spec = JobSpecSchema.parse(JSON.parse(readFileSync(this.inputFile(job.id), "utf8")));
      this.add(spec, job.documents);
      rmSync(this.inputFile(job.id), { force: true });
    } catch {
      // Its input is gone: nothing to run again.
    }
  }

  private save(): void {
    const all = [...this.jobs.values()];
    const finished = all.filter((j) => j.status !== "queued" && j.status !== "running");
    for (const old of finished.slice(0, Math.max(0, finished.length - this.keptJobs)))
      this.jobs.delete(old.id);
    const file = this.jobsFile();
    writeFileSync(`${file}.tmp`, JSON.stringify([...this.jobs.values()]));
    renameSync(`${file}.tmp`, file);
  }

  private jobsFile(): string {
    return join(this.folder, "jobs.json");
  }

  private inputsFolder(): string {
    return join(this.folder, "job-inputs");
  }

  private inputFile(id: string): string {
    return join(this.inputsFolder(), `${id}.json`);
  }
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}
