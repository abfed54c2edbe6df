import { type ChildProcess, fork } from "node:child_process";
import { createHash } from "node:crypto";
import type { QueryContextEvent } from "../../query/options.js";
import { childEntry } from "../../util/child-entry.js";
import { badRequest } from "../errors.js";
import type { FromQueryWorker, PlainQueryOptions, QueryWorkerData, ToQueryWorker } from "./query-messages.js";

/** What a streaming caller hears before the result. */
export interface QueryEvents {
  onContext?: (context: QueryContextEvent) => void;
  onToken?: (text: string) => void;
}

interface Pending {
  events: QueryEvents;
  resolve: (json: Buffer) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  child: ChildProcess;
  pending: Map<number, Pending>;
  /** Queries sent to it (diagnostics and tests). */
  sent: number;
  stderr: string;
  /** Settles when the process has opened (and warmed) the pool's workspaces, or has stopped. */
  ready: Promise<WarmedWorkspace[]>;
}

/** A workspace a query process warmed, and the modes its warm-up query was answered in. */
export interface WarmedWorkspace {
  workspace: string;
  modes: string[];
}

/** How long a query process may take to close its workspaces before it is killed. */
const CLOSE_GRACE_MS = 5_000;

/** Questions whose process is remembered (the oldest forgotten first). */
const MAX_REMEMBERED_QUESTIONS = 4_096;

/** The query process entry beside this file (see childEntry). */
const workerEntry = () => childEntry(import.meta.url, "query-worker");

/**
 * A few processes that answer queries (see query-worker.ts), each query going to the one with the
 * fewest in hand. Processes rather than threads: each holds its own SQLite connection and caches,
 * and a crash stays in it; a process that dies fails its queries and is replaced.
 *
 * A question asked again (another mode, scope or id) goes back to the process that answered it,
 * unless that one has more in hand than the least busy: what a question costs the first time
 * (its keywords, the full-text postings of its words, the token counts of its context lines) is
 * kept per process, and is about four times a warm answer's CPU.
 */
export class QueryPool {
  private readonly workers: PoolWorker[] = [];
  private readonly byQuestion = new Map<string, PoolWorker>();
  private nextId = 0;
  private closing = false;

  constructor(
    size: number,
    private readonly data: QueryWorkerData,
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  get size(): number {
    return this.workers.length;
  }

  /** Queries sent to each current process so far. */
  get sentPerProcess(): number[] {
    return this.workers.map((w) => w.sent);
  }

  /** What each current process warmed, once all of them have opened the workspaces (none for one that stopped first). */
  ready(): Promise<WarmedWorkspace[][]> {
    return Promise.all(this.workers.map((w) => w.ready));
  }

  /** The query's result as JSON, in UTF-8. */
  run(
    workspace: string,
    question: string,
    options: PlainQueryOptions,
    events: QueryEvents = {},
  ): Promise<Buffer> {
    const id = this.nextId++;
    const stream = Boolean(events.onContext || events.onToken);
    return new Promise<Buffer>((resolve, reject) => {
      const target = this.workerFor(workspace, question);
      target.sent += 1;
      target.pending.set(id, { events, resolve, reject });
      send(target, { type: "query", id, workspace, question, options, stream });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => stop(w)));
    this.workers.length = 0;
  }

  /** The process that answered the question before, unless it is busier than another; else the least busy. */
  private workerFor(workspace: string, text: string): PoolWorker {
    const least = this.leastBusy();
    // A digest, so that long questions do not make the memory long.
    const question = createHash("sha1").update(workspace).update("\0").update(text).digest("base64");
    const before = this.byQuestion.get(question);
    const chosen =
      before && this.workers.includes(before) && before.pending.size <= least.pending.size ? before : least;
    this.byQuestion.delete(question);
    this.byQuestion.set(question, chosen);
    if (this.byQuestion.size > MAX_REMEMBERED_QUESTIONS) {
      const oldest = this.byQuestion.keys().next().value;
      if (oldest !== undefined) this.byQuestion.delete(oldest);
    }
    return chosen;
  }

  private leastBusy(): PoolWorker {
    if (this.closing || this.workers.length === 0) throw new Error("The query pool is closed");
    let best = this.workers[0] as PoolWorker;
    for (const w of this.workers) if (w.pending.size < best.pending.size) best = w;
    return best;
  }

  private spawn(): PoolWorker {
    const entry = workerEntry();
    const child = fork(entry.file, [], {
      execArgv: entry.execArgv,
      env: this.data.env,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      // Structured clone: a result's JSON bytes cross as they are, not escaped into a second JSON.
      serialization: "advanced",
    });
    let markReady: (warmed: WarmedWorkspace[]) => void = () => {};
    const ready = new Promise<WarmedWorkspace[]>((resolve) => {
      markReady = resolve;
    });
    const slot: PoolWorker = { child, pending: new Map(), sent: 0, stderr: "", ready };
    child.stderr?.on("data", (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString()).slice(-4000);
    });
    child.on("message", (message: FromQueryWorker) => {
      if (message.type === "ready") markReady(message.warmed);
      else deliver(slot, message);
    });
    child.on("exit", (code, signal) => {
      markReady([]);
      const why = `the query process stopped (${signal ?? `exit code ${code}`}): ${slot.stderr.trim()}`;
      this.replace(slot, new Error(why));
    });
    // Idle query processes do not keep the server alive; its socket does.
    child.unref();
    child.channel?.unref();
    if (this.data.workspaces.length > 0)
      send(slot, { type: "open", workspaces: this.data.workspaces, warmUp: this.data.warmUp ?? false });
    else markReady([]);
    return slot;
  }

  private replace(slot: PoolWorker, error: Error): void {
    for (const pending of slot.pending.values()) pending.reject(error);
    slot.pending.clear();
    const at = this.workers.indexOf(slot);
    if (at < 0 || this.closing) return;
    this.workers[at] = this.spawn();
  }
}

function send(slot: PoolWorker, message: ToQueryWorker): void {
  slot.child.send(message);
}

async function stop(slot: PoolWorker): Promise<void> {
  if (slot.child.exitCode !== null || slot.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    slot.child.once("exit", () => resolve());
    setTimeout(() => {
      slot.child.kill("SIGKILL");
      resolve();
    }, CLOSE_GRACE_MS).unref();
  });
  if (slot.child.connected) send(slot, { type: "close" });
  await exited;
}

function deliver(slot: PoolWorker, message: Exclude<FromQueryWorker, { type: "ready" }>): void {
  const pending = slot.pending.get(message.id);
  if (!pending) return;
  switch (message.type) {
    case "context":
      pending.events.onContext?.(message.context);
      return;
    case "token":
      pending.events.onToken?.(message.text);
      return;
    case "done":
      slot.pending.delete(message.id);
      // A copy: the message's bytes are a view into the channel's read buffer, which they would
      // otherwise keep alive (in the query cache, for one).
      pending.resolve(Buffer.from(message.json));
      return;
    case "failed":
      slot.pending.delete(message.id);
      pending.reject(message.callerError ? badRequest(message.message) : new Error(message.message));
  }
}
