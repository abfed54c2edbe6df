import { type ChildProcess, fork } from "node:child_process";
import { createHash } from "node:crypto";
import type { QueryContextEvent } from "../../query/options.js";
import { childEntry } from "../../util/child-entry.js";
import { badRequest } from "../errors.js";
import { DEFAULT_CANCEL_GRACE_MS, DEFAULT_QUERY_AFFINITY_SLACK } from "../server-config.js";
import type { FromQueryWorker, PlainQueryOptions, QueryWorkerData, ToQueryWorker } from "./query-messages.js";

/** What a streaming caller hears before the result. */
export interface QueryEvents {
  onContext?: (context: QueryContextEvent) => void;
  onToken?: (text: string) => void;
}

type QueryRequest = Extract<ToQueryWorker, { type: "query" }>;

interface Pending {
  request: QueryRequest;
  events: QueryEvents;
  resolve: (json: Buffer) => void;
  reject: (error: Error) => void;
  /** The process it was sent to (another one when that one was killed before its turn came). */
  slot: PoolWorker;
  /** Its caller left or its time ran out: the caller has its error, and the process was told to stop. */
  cancelled: boolean;
  /** An event of it reached the caller, so sending it to another process would repeat them. */
  heard: boolean;
  /** Kills the process unless it stops this cancelled query first (see watchHead). */
  killTimer?: NodeJS.Timeout;
}

interface PoolWorker {
  child: ChildProcess;
  /** In the order sent, which is the order the process answers them in: the first one is running. */
  pending: Map<number, Pending>;
  /** Queries sent to it (diagnostics and tests). */
  sent: number;
  stderr: string;
  /** Settles when the process has opened (and warmed) the pool's workspaces, or has stopped. */
  ready: Promise<WarmedWorkspace[]>;
  /** It has opened (and warmed) the workspaces: from then on, the first query it holds is running. */
  opened: boolean;
  /** Killed by the pool, for a cancelled query it did not stop: its other queries go elsewhere. */
  killed: boolean;
}

/** What the pool does with a cancelled query's process, and how it places a question asked again. */
export interface QueryPoolSettings {
  /** How long a process gets to stop a cancelled query before it is killed (see ServerConfig.queryCancelGraceMs). */
  cancelGraceMs: number;
  /** How many queries more than the least busy process the one that answered a question may hold and still get it again (see ServerConfig.queryAffinitySlack). */
  affinitySlack?: number;
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

/**
 * Questions up to this length are remembered by their text; longer ones by a digest, so that long
 * questions do not make the memory long. Hashing every question cost more of the request loop than
 * the rest of the routing (a SHA-1 object per request).
 */
const MAX_QUESTION_KEY_CHARS = 512;

/** The key a question's process is remembered by: its workspace and text, or their digest when long. */
function questionKey(workspace: string, text: string): string {
  if (workspace.length + text.length <= MAX_QUESTION_KEY_CHARS) return `${workspace}\0${text}`;
  return createHash("sha1").update(workspace).update("\0").update(text).digest("base64");
}

/** The query process entry beside this file (see childEntry). */
const workerEntry = () => childEntry(import.meta.url, "query-worker");

/**
 * A few processes that answer queries (see query-worker.ts), each query going to the one with the
 * fewest in hand. Processes rather than threads: each holds its own SQLite connection and caches,
 * and a crash stays in it; a process that dies fails its queries and is replaced.
 *
 * A question asked again (another mode, scope or id) goes back to the process that answered it,
 * unless that one has more than `affinitySlack` queries in hand beyond the least busy: what a
 * question costs the first time (its keywords, the full-text postings of its words, the token
 * counts of its context lines) is kept per process, and is about four times a warm answer's CPU.
 */
export class QueryPool {
  private readonly workers: PoolWorker[] = [];
  private readonly byQuestion = new Map<string, PoolWorker>();
  private nextId = 0;
  private closing = false;
  private cancelled = 0;
  private killed = 0;

  constructor(
    size: number,
    private readonly data: QueryWorkerData,
    private readonly settings: QueryPoolSettings = { cancelGraceMs: DEFAULT_CANCEL_GRACE_MS },
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

  /** Queries cancelled so far: their time ran out, or their caller left (diagnostics and tests). */
  get cancelledQueries(): number {
    return this.cancelled;
  }

  /** Processes killed so far for a cancelled query they did not stop in time (diagnostics and tests). */
  get killedProcesses(): number {
    return this.killed;
  }

  /** The current processes' ids (tests). */
  get processIds(): (number | undefined)[] {
    return this.workers.map((w) => w.child.pid);
  }

  /** What each current process warmed, once all of them have opened the workspaces (none for one that stopped first). */
  ready(): Promise<WarmedWorkspace[][]> {
    return Promise.all(this.workers.map((w) => w.ready));
  }

  /**
   * The query's result as JSON, in UTF-8. When `signal` aborts, the result rejects at once with its
   * reason and the process is told to stop the query (see cancel).
   */
  run(
    workspace: string,
    question: string,
    options: PlainQueryOptions,
    events: QueryEvents = {},
    signal?: AbortSignal,
  ): Promise<Buffer> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    const stream = Boolean(events.onContext || events.onToken);
    const request: QueryRequest = { type: "query", id, workspace, question, options, stream };
    return new Promise<Buffer>((resolve, reject) => {
      const target = this.workerFor(workspace, question);
      const cancel = () => this.cancel(pending, signal?.reason);
      const pending: Pending = {
        request,
        events,
        slot: target,
        cancelled: false,
        heard: false,
        resolve: (json) => {
          signal?.removeEventListener("abort", cancel);
          resolve(json);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", cancel);
          reject(error);
        },
      };
      signal?.addEventListener("abort", cancel, { once: true });
      this.dispatch(pending, target);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => stop(w)));
    this.workers.length = 0;
  }

  /** The process that answered the question before, unless it is busier than the least busy by more than the slack; else the least busy. */
  private workerFor(workspace: string, text: string): PoolWorker {
    const least = this.leastBusy();
    const question = questionKey(workspace, text);
    const before = this.byQuestion.get(question);
    const slack = this.settings.affinitySlack ?? DEFAULT_QUERY_AFFINITY_SLACK;
    const chosen =
      before && this.workers.includes(before) && before.pending.size <= least.pending.size + slack
        ? before
        : least;
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
    const slot: PoolWorker = {
      child,
      pending: new Map(),
      sent: 0,
      stderr: "",
      ready,
      opened: false,
      killed: false,
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString()).slice(-4000);
    });
    child.on("message", (message: FromQueryWorker) => {
      if (message.type !== "ready") {
        this.deliver(slot, message);
        return;
      }
      slot.opened = true;
      markReady(message.warmed);
      this.watchHead(slot);
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
    else {
      slot.opened = true;
      markReady([]);
    }
    return slot;
  }

  private dispatch(pending: Pending, target: PoolWorker): void {
    pending.slot = target;
    target.sent += 1;
    target.pending.set(pending.request.id, pending);
    send(target, pending.request);
  }

  /**
   * The caller has its error now; the process is told to stop the query, and is killed if it has
   * not once the query is its running one and the grace period passed (see watchHead).
   */
  private cancel(pending: Pending, reason: unknown): void {
    const { slot, request } = pending;
    if (pending.cancelled || slot.pending.get(request.id) !== pending) return;
    pending.cancelled = true;
    this.cancelled += 1;
    pending.reject(reason instanceof Error ? reason : new Error("The query was cancelled"));
    // A killed process hears nothing more (a write to it may fail): its exit drops the query.
    if (slot.child.connected && !slot.killed) send(slot, { type: "cancel", id: request.id });
    this.watchHead(slot);
  }

  /**
   * A process answers its queries one after another, so the first one it holds is the one it is
   * working on. If that one was cancelled, the process gets the grace period to stop it (a query
   * stops at its next step) before it is killed: it is then stuck in work that does not yield.
   * One still opening its workspaces is left to finish that.
   */
  private watchHead(slot: PoolWorker): void {
    if (!slot.opened || slot.killed) return;
    const head = slot.pending.values().next().value;
    if (!head?.cancelled || head.killTimer) return;
    head.killTimer = setTimeout(() => this.kill(slot), this.settings.cancelGraceMs);
    head.killTimer.unref();
  }

  /**
   * Kills the process and puts a new one in its place at once: until the killed one has exited, a
   * query sent to it would only wait there (or fail to be written). Its exit sends the queries
   * waiting in it to the others (see replace).
   */
  private kill(slot: PoolWorker): void {
    if (slot.killed) return;
    slot.killed = true;
    this.killed += 1;
    slot.child.kill("SIGKILL");
    const at = this.workers.indexOf(slot);
    if (at >= 0 && !this.closing) this.workers[at] = this.spawn();
  }

  private deliver(slot: PoolWorker, message: Exclude<FromQueryWorker, { type: "ready" }>): void {
    const pending = slot.pending.get(message.id);
    if (!pending) return;
    switch (message.type) {
      case "context":
        if (pending.cancelled) return;
        pending.heard = true;
        pending.events.onContext?.(message.context);
        return;
      case "token":
        if (pending.cancelled) return;
        pending.heard = true;
        pending.events.onToken?.(message.text);
        return;
      case "done":
      case "failed":
        slot.pending.delete(message.id);
        clearTimeout(pending.killTimer);
        this.watchHead(slot);
        if (pending.cancelled) return;
        if (message.type === "done") {
          pending.resolve(ownBytes(message.json));
        } else {
          pending.reject(message.callerError ? badRequest(message.message) : new Error(message.message));
        }
    }
  }

  /**
   * A process stopped: its queries fail with `error`, except when the pool killed it for a
   * cancelled query: then the ones waiting their turn behind it go to another process. A killed
   * process was replaced when it was killed; one that died of itself is replaced here.
   */
  private replace(slot: PoolWorker, error: Error): void {
    const left = [...slot.pending.values()];
    slot.pending.clear();
    const at = this.workers.indexOf(slot);
    if (at >= 0 && !this.closing) this.workers[at] = this.spawn();
    for (const pending of left) {
      clearTimeout(pending.killTimer);
      pending.killTimer = undefined;
      if (pending.cancelled) continue;
      if (slot.killed && !pending.heard && !this.closing) this.dispatch(pending, this.leastBusy());
      else pending.reject(error);
    }
  }
}

/**
 * A message that cannot be written (the process is dying: EPIPE, or its channel closed) is let
 * go: the process's exit, which follows, fails or resends its queries. Without the callback the
 * error would be emitted on the child process, and, unheard, end the server.
 */
function send(slot: PoolWorker, message: ToQueryWorker): void {
  slot.child.send(message, (error) => {
    if (error) slot.stderr = `${slot.stderr}\n${error.message}`.slice(-4000);
  });
}

/**
 * A result's bytes as a Buffer that keeps at most about twice their size alive. They arrive as a
 * view into the channel's read buffer: one read of up to 64 KB may hold several small messages, so
 * a small result is copied (kept in the query cache, its view would keep the whole read buffer
 * alive); a large one (a context is some 65 KB) arrives in a buffer joined from several reads,
 * mostly its own, which is used as it is instead of being copied again.
 */
function ownBytes(view: Uint8Array): Buffer {
  if (view.byteLength * 2 < view.buffer.byteLength) return Buffer.from(view);
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
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
