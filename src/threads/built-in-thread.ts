import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { z } from "zod";
import type { ClusterGraph, Clustering, ClusterOptions } from "../community/cluster.js";
import type { ExtractiveReportsInput, WrittenReport } from "../community/extractive-reports.js";
import type { Extraction } from "../types.js";
import { testBundleEntry } from "../util/test-bundle-entry.js";
import type { ExtractRequest, FromBuiltInWorker, ToBuiltInWorker } from "./messages.js";

/** The thread could not start or died: the caller does the work itself. */
export class BuiltInThreadUnavailable extends Error {
  constructor(cause: unknown) {
    super(
      `the built-ins' worker thread is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = "BuiltInThreadUnavailable";
  }
}

/** The caller's signal aborted before the thread answered: the work is dropped, not done. */
export class BuiltInWorkStopped extends Error {
  constructor() {
    super("stopped before the built-ins' thread answered");
    this.name = "BuiltInWorkStopped";
  }
}

export interface WorkerScript {
  script: string | URL;
  options: WorkerOptions;
}

/**
 * offline-worker beside this module: compiled JavaScript in a build (dist/src, or a chunk of the
 * bundled CLI, which sits beside its entries), TypeScript when kgrag runs from sources (loaded
 * through tsx's ES module API, so that it works whatever flags the parent was started with).
 */
export function offlineWorkerScript(): WorkerScript {
  const js = new URL("./offline-worker.js", import.meta.url);
  if (existsSync(js)) return { script: js, options: {} };
  const bundled = testBundleEntry("offline-worker");
  if (bundled) return { script: pathToFileURL(bundled), options: {} };
  const ts = pathToFileURL(fileURLToPath(new URL("./offline-worker.ts", import.meta.url))).href;
  const boot = `import(${JSON.stringify(tsxEsmApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts)}); });`;
  return { script: boot, options: { eval: true } };
}

/** tsx's ES module API (its CommonJS build cannot register from an evaluated worker script). */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const exports = TsxManifestSchema.parse(JSON.parse(readFileSync(manifest, "utf8"))).exports;
  return pathToFileURL(join(dirname(manifest), exports["./esm/api"].import.default)).href;
}

const TsxManifestSchema = z.object({
  exports: z.object({ "./esm/api": z.object({ import: z.object({ default: z.string() }) }) }),
});

/** One row of a flat buffer as an array (a plain loop: ten times faster than Array.from here). */
function rowOf(vectors: Float64Array, row: number, dimension: number): number[] {
  const out = new Array<number>(dimension);
  const start = row * dimension;
  for (let i = 0; i < dimension; i += 1) out[i] = vectors[start + i] as number;
  return out;
}

interface Pending {
  resolve(reply: FromBuiltInWorker): void;
  reject(error: Error): void;
  signal: AbortSignal | undefined;
}

/** A request before it gets its id (Omit kept apart per kind). */
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
type Request = WithoutId<ToBuiltInWorker>;

/**
 * One worker thread for the offline built-ins (NLP extraction, hashing embedding), started on the
 * first request and ended after `idleMs` without one. It holds the process open only while it
 * has work. Once it fails to start or dies, every request (those in hand too) is refused with
 * BuiltInThreadUnavailable, and callers fall back to doing the work themselves.
 */
export class BuiltInThread {
  private worker: Worker | undefined;
  private failure: Error | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | undefined;
  private answeredCount = 0;
  /**
   * One abort listener per signal (thousands of requests may share one) while it has requests in
   * hand, removed with its last one: a long-running server sees a signal per index job.
   */
  private readonly bySignal = new Map<AbortSignal, { ids: Set<number>; onAbort: () => void }>();

  constructor(
    private readonly idleMs: number,
    private readonly start: () => WorkerScript = offlineWorkerScript,
  ) {}

  get usable(): boolean {
    return this.failure === undefined;
  }

  /** Whether the thread is running now (started and not yet ended for idling, closed or failed). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Requests the thread has answered so far (for diagnostics and tests). */
  get answered(): number {
    return this.answeredCount;
  }

  /** Rejected with BuiltInWorkStopped when `signal` aborts first. */
  async extract(chunk: ExtractRequest, signal?: AbortSignal): Promise<Extraction> {
    const reply = await this.request({ kind: "extract", ...chunk }, signal);
    if (reply.kind !== "extract") throw new Error(`unexpected reply ${reply.kind} to an extraction`);
    return reply.extraction;
  }

  /** Rows of the flat buffer as arrays, as the Embedder interface hands them out. */
  async embed(texts: string[], dimension: number): Promise<number[][]> {
    const reply = await this.request({ kind: "embed", texts, dimension });
    if (reply.kind !== "embed") throw new Error(`unexpected reply ${reply.kind} to an embedding`);
    return texts.map((_, row) => rowOf(reply.vectors, row, dimension));
  }

  /** The community hierarchy of the graph (clusterGraphHierarchy on the thread); see extract for `signal`. */
  async cluster(graph: ClusterGraph, options: ClusterOptions, signal?: AbortSignal): Promise<Clustering> {
    const reply = await this.request({ kind: "cluster", graph, options }, signal);
    if (reply.kind !== "cluster") throw new Error(`unexpected reply ${reply.kind} to a clustering`);
    return reply.clustering;
  }

  /** Sends the graph and hierarchy that the next writeReports calls write from. */
  async openReports(input: ExtractiveReportsInput): Promise<void> {
    const reply = await this.request({ kind: "open reports", input });
    if (reply.kind !== "open reports") throw new Error(`unexpected reply ${reply.kind} to opening reports`);
  }

  /** Offline reports of these communities, in order (ExtractiveReportBook on the thread). */
  async writeReports(ids: string[], signal?: AbortSignal): Promise<WrittenReport[]> {
    const reply = await this.request({ kind: "write reports", ids }, signal);
    if (reply.kind !== "write reports") throw new Error(`unexpected reply ${reply.kind} to writing reports`);
    return reply.reports;
  }

  /** Ends the thread now (requests in hand are refused). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.refuseAll(new BuiltInThreadUnavailable("closed"));
    if (worker) await worker.terminate();
  }

  private request(request: Request, signal?: AbortSignal): Promise<FromBuiltInWorker> {
    if (this.failure) return Promise.reject(this.failure);
    if (signal?.aborted) return Promise.reject(new BuiltInWorkStopped());
    let worker: Worker;
    try {
      worker = this.running();
    } catch (error) {
      // A thread that cannot be created (resource limits, a missing entry) counts as dead.
      this.fail(error);
      return Promise.reject(this.failure);
    }
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    if (this.pending.size === 0) worker.ref();
    return new Promise<FromBuiltInWorker>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, signal });
      if (signal) this.watch(signal, id);
      worker.postMessage({ ...request, id });
    }).then((reply) => {
      if (reply.kind === "error") throw new Error(reply.message);
      return reply;
    });
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const { script, options } = this.start();
    const worker = new Worker(script, options);
    worker.on("message", (reply: FromBuiltInWorker) => this.settle(reply));
    // Events of a worker already retired or closed concern nobody now.
    worker.on("error", (error) => {
      if (this.worker === worker) this.fail(error);
    });
    worker.on("messageerror", (error) => {
      if (this.worker === worker) this.fail(error);
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.fail(new Error(`exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: FromBuiltInWorker): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.forget(reply.id, waiting);
    this.answeredCount += 1;
    waiting.resolve(reply);
    this.idleIfDone();
  }

  /** Idle: the thread no longer holds the process open, and ends unless work comes soon. */
  private idleIfDone(): void {
    if (this.pending.size > 0) return;
    this.worker?.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.retire(), this.idleMs);
    this.idleTimer.unref();
  }

  private watch(signal: AbortSignal, id: number): void {
    let watched = this.bySignal.get(signal);
    if (!watched) {
      const onAbort = () => this.stop(signal);
      watched = { ids: new Set(), onAbort };
      this.bySignal.set(signal, watched);
      signal.addEventListener("abort", onAbort, { once: true });
    }
    watched.ids.add(id);
  }

  private forget(id: number, pending: Pending): void {
    this.pending.delete(id);
    const { signal } = pending;
    const watched = signal && this.bySignal.get(signal);
    if (!signal || !watched) return;
    watched.ids.delete(id);
    if (watched.ids.size > 0) return;
    this.bySignal.delete(signal);
    signal.removeEventListener("abort", watched.onAbort);
  }

  /**
   * The signal's requests are dropped at once. When nothing else is waiting, the thread is ended
   * too, rather than left working through a queue whose answers nobody reads.
   */
  private stop(signal: AbortSignal): void {
    const ids = this.bySignal.get(signal)?.ids ?? new Set<number>();
    this.bySignal.delete(signal);
    for (const id of ids) {
      const waiting = this.pending.get(id);
      if (!waiting) continue;
      this.pending.delete(id);
      waiting.reject(new BuiltInWorkStopped());
    }
    if (this.pending.size > 0) return;
    clearTimeout(this.idleTimer);
    void this.retire();
  }

  private async retire(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.pending.size > 0) return;
    this.worker = undefined;
    await worker.terminate();
  }

  private fail(cause: unknown): void {
    this.failure = new BuiltInThreadUnavailable(cause);
    const worker = this.worker;
    this.worker = undefined;
    this.refuseAll(this.failure);
    void worker?.terminate();
  }

  private refuseAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const [signal, { onAbort }] of this.bySignal) signal.removeEventListener("abort", onAbort);
    this.bySignal.clear();
    for (const entry of waiting) entry.reject(error);
  }
}
