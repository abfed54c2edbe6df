import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * The thread's code, evaluated as CommonJS: a connection of its own to the workspace's file that
 * runs passive checkpoints on request. better-sqlite3 comes from the path the parent resolved (an
 * evaluated script resolves packages from the working directory, not from kgrag's install).
 */
const THREAD_SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
db.pragma("synchronous = NORMAL");
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.postMessage({ closed: true });
    parentPort.close();
    return;
  }
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

type ThreadReply = { ok: true } | { ok: false; error: string };

function isThreadReply(value: unknown): value is ThreadReply {
  return typeof value === "object" && value !== null && "ok" in value;
}

export interface LogCheckpointerOptions {
  /** The SQLite file whose write-ahead log is copied. */
  file: string;
  /** How long the thread's connection waits for a lock. */
  busyTimeoutMs: number;
  /** The same checkpoint on the caller's connection, when the thread cannot run. */
  onMainThread: () => void;
}

/**
 * Copies a SQLite file's write-ahead log into the file on a worker thread with a connection of its
 * own: a checkpoint waits for the disk (the log's fsync, then the file's: from tens of ms to
 * seconds on a busy disk), and on the main thread that wait held back everything else, such as
 * reading a model's reply. In WAL mode a passive checkpoint takes no lock a writer needs, so the
 * main connection keeps reading and writing meanwhile. The thread starts on the first checkpoint
 * and does not keep the process alive between checkpoints; if it cannot run, checkpoints go back
 * to the main connection.
 */
export class LogCheckpointer {
  private thread: Worker | undefined;
  private threadFailed = false;
  /** Set as closing starts: a checkpoint asked for from then on runs on the main connection. */
  private closed = false;
  /** The last checkpoint asked for (each starts after the one before). */
  private last: Promise<void> = Promise.resolve();
  /** A checkpoint asked for that has not started yet: a second call shares it. */
  private waiting: Promise<void> | undefined;

  constructor(private readonly options: LogCheckpointerOptions) {}

  /**
   * Settles once a checkpoint started at or after this call has copied the log. While one runs,
   * the next waits for it: frames written meanwhile may be past the running one's reach.
   */
  checkpoint(): Promise<void> {
    if (this.waiting) return this.waiting;
    const next = this.last
      .catch(() => {})
      .then(() => {
        this.waiting = undefined;
        return this.runOnce();
      });
    this.waiting = next;
    this.last = next;
    return next;
  }

  /**
   * Waits for the checkpoints asked for, then for the thread's connection to close; the thread
   * then ends on its own (tearing a thread down takes tens of ms on a busy machine: not waited for).
   */
  async close(): Promise<void> {
    // A thread started after this would never be closed: its connection would stay open (and keep
    // the main connection, closing, from removing the log) for the rest of the process.
    this.closed = true;
    await this.last.catch(() => {});
    const thread = this.thread;
    this.thread = undefined;
    if (!thread || this.threadFailed) return;
    await new Promise<void>((resolve) => {
      thread.once("message", () => resolve());
      thread.once("exit", () => resolve());
      thread.ref();
      thread.postMessage("close");
    });
    thread.unref();
  }

  private runOnce(): Promise<void> {
    const thread = this.startedThread();
    if (!thread) {
      this.options.onMainThread();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (reply: ThreadReply | undefined) => {
        thread.off("message", onMessage);
        thread.off("error", onFailure);
        thread.off("exit", onFailure);
        thread.unref();
        if (reply?.ok) return resolve();
        if (reply) return reject(new Error(reply.error));
        // The thread died: this checkpoint and the next ones run on the main connection.
        this.threadFailed = true;
        this.thread = undefined;
        try {
          this.options.onMainThread();
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      const onMessage = (message: unknown) => settle(isThreadReply(message) ? message : undefined);
      const onFailure = () => settle(undefined);
      thread.on("message", onMessage);
      thread.once("error", onFailure);
      thread.once("exit", onFailure);
      // Held while a checkpoint runs: a caller awaiting it must not see the process end first.
      thread.ref();
      thread.postMessage("checkpoint");
    });
  }

  private startedThread(): Worker | undefined {
    if (this.threadFailed || this.closed) return undefined;
    if (this.thread) return this.thread;
    try {
      const driver = createRequire(import.meta.url).resolve("better-sqlite3");
      const { file, busyTimeoutMs } = this.options;
      const thread = new Worker(THREAD_SCRIPT, { eval: true, workerData: { driver, file, busyTimeoutMs } });
      // Always heard, also between checkpoints and while closing: an unheard 'error' would be
      // thrown in the main thread. A thread that failed or ended is not used (nor waited for) again.
      const gone = () => {
        this.threadFailed = true;
      };
      thread.on("error", gone);
      thread.on("exit", gone);
      this.thread = thread;
      return thread;
    } catch {
      this.threadFailed = true;
      return undefined;
    }
  }
}
