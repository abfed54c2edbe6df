import {
  type Clusterer,
  type ClusterGraph,
  type Clustering,
  type ClusterOptions,
  inProcessClusterer,
} from "../community/cluster.js";
import type {
  ExtractiveReportBatches,
  ExtractiveReportBook,
  ExtractiveReportsHost,
  ExtractiveReportsInput,
  WrittenReport,
} from "../community/extractive-reports.js";
import type { BuiltInThreadConfig, OfflineExtractionConfig } from "../config.js";
import type { Embedder } from "../embedding/embedder.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type {
  ExtractionContext,
  ExtractionOutcome,
  ExtractionRun,
  Extractor,
} from "../extraction/extractor.js";
import { OFFLINE_EXTRACTION_DEFAULTS } from "../extraction/offline-defaults.js";
import type { OfflineNlpExtractor } from "../extraction/offline-extractor.js";
import type { ChunkRecord } from "../types.js";
import { BuiltInThread, BuiltInThreadUnavailable, BuiltInWorkStopped } from "./built-in-thread.js";

let shared: BuiltInThread | undefined;

/** The process's one thread for the built-ins (its idle time is the first caller's setting). */
export function sharedBuiltInThread(config: BuiltInThreadConfig): BuiltInThread {
  shared ??= new BuiltInThread(config.idleMs);
  return shared;
}

/** Runs `work` on the thread, or in-process when the thread is unavailable; other errors are thrown. */
async function onThreadOrHere<T>(
  thread: BuiltInThread,
  work: () => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  if (!thread.usable) return here();
  try {
    return await work();
  } catch (error) {
    if (error instanceof BuiltInThreadUnavailable) return here();
    throw error;
  }
}

/**
 * The offline NLP extractor with its work on the built-ins' thread once a run has done
 * `inProcessChunks` chunks here (a small run never starts the thread), or from the first chunk
 * when the run is known to be larger than that: the main thread, which merges, is then spared
 * those chunks' NLP (the thread starts while the documents are still being chunked). The thread
 * answers in order, so chunks come out in the order they went in, as in-process: the same graph.
 */
export class ThreadedNlpExtractor implements Extractor {
  readonly kind = "offline-nlp" as const;
  /**
   * The in-process extractor, given (createComponents loads its module with the offline branch) or
   * loaded with the first in-process chunk: through marked, the module is not start-up's to pay.
   */
  private here: Promise<OfflineNlpExtractor> | undefined;
  private extracted = 0;

  constructor(
    private readonly thread: BuiltInThread,
    private readonly config: BuiltInThreadConfig,
    private readonly options: OfflineExtractionConfig = OFFLINE_EXTRACTION_DEFAULTS,
    here?: OfflineNlpExtractor,
  ) {
    if (here) this.here = Promise.resolve(here);
  }

  private inProcess(): Promise<OfflineNlpExtractor> {
    this.here ??= import("../extraction/offline-extractor.js").then(
      ({ OfflineNlpExtractor }) => new OfflineNlpExtractor(this.options),
    );
    return this.here;
  }

  /**
   * Enough chunks handed over that the thread keeps extracting while a merge batch commits; two
   * once the thread is known to be unavailable (in-process work is synchronous, and thousands
   * started at once would hold the event loop: no stop, no progress meanwhile). Read as a run starts.
   */
  get inFlight(): number {
    return this.thread.usable ? this.config.chunksInFlight : 2;
  }

  /** Each run starts in-process again (a small run never starts the thread), unless known to be large. */
  beginRun(run?: ExtractionRun): void {
    const large = run !== undefined && run.documents > this.config.inProcessChunks;
    this.extracted = large ? this.config.inProcessChunks : 0;
  }

  async extract(chunk: ChunkRecord, context: ExtractionContext): Promise<ExtractionOutcome> {
    this.extracted += 1;
    const here = async () => (await this.inProcess()).extract(chunk, context);
    if (this.extracted <= this.config.inProcessChunks) return here();
    try {
      return await onThreadOrHere<ExtractionOutcome>(
        this.thread,
        async () => ({
          ok: true,
          extraction: await this.thread.extract(
            { text: chunk.text, title: context.title, startsInside: chunk.start > 0, options: this.options },
            context.signal,
          ),
        }),
        here,
      );
    } catch (error) {
      // Stopped while queued: not a failure of the chunk, which the run leaves pending.
      if (error instanceof BuiltInWorkStopped) return { ok: false, error: error.message, rawOutput: null };
      throw error;
    }
  }
}

/**
 * The hashing embedder with large calls on the built-ins' thread once `inProcessTexts` texts have
 * been embedded here, or at once while the thread is running anyway (a large run's extraction
 * started it: nothing to save by staying on the main thread); small calls (a question's vector)
 * never wait behind a batch. Same vectors, bit for bit.
 */
export class ThreadedHashingEmbedder implements Embedder {
  readonly kind = "hashing" as const;
  private readonly here: HashingEmbedder;
  private embedded = 0;

  constructor(
    private readonly thread: BuiltInThread,
    private readonly config: BuiltInThreadConfig,
    dimension: number,
  ) {
    this.here = new HashingEmbedder(dimension);
  }

  get model(): string {
    return this.here.model;
  }

  get dimension(): number {
    return this.here.dimension;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const here = () => this.here.embed(texts);
    const warm = this.embedded >= this.config.inProcessTexts || this.thread.started;
    this.embedded += texts.length;
    if (!warm || texts.length < this.config.minEmbedTexts) return here();
    return onThreadOrHere(this.thread, () => this.thread.embed(texts, this.dimension), here);
  }
}

/**
 * Clustering on the built-ins' thread, so that a run clusters while its main thread summarises;
 * the same hierarchy as in-process (the same function on the same sorted graph).
 */
export class ThreadedClusterer implements Clusterer {
  constructor(
    private readonly thread: BuiltInThread,
    private readonly config: BuiltInThreadConfig,
  ) {}

  hierarchy(graph: ClusterGraph, options: ClusterOptions, signal?: AbortSignal): Promise<Clustering> {
    if (graph.edges.length < this.config.minClusterEdges) return inProcessClusterer.hierarchy(graph, options);
    return onThreadOrHere(
      this.thread,
      () => this.thread.cluster(graph, options, signal),
      () => inProcessClusterer.hierarchy(graph, options),
    );
  }
}

/**
 * Offline reports on a thread of their own, started per run with a copy of the graph, so that a
 * run writes its reports while its main thread writes vectors and search indexes. Runs with fewer
 * than `minThreadReports` to write keep them in-process.
 */
export class ThreadedReportsHost implements ExtractiveReportsHost {
  constructor(
    private readonly config: BuiltInThreadConfig,
    private readonly start?: ConstructorParameters<typeof BuiltInThread>[1],
  ) {}

  open(input: ExtractiveReportsInput, stale: number): ThreadedReportBatches | undefined {
    if (stale === 0 || stale < this.config.minThreadReports) return undefined;
    // Never ended for idling: a thread started again would not have the graph. The report step
    // closes it; idle, it does not hold the process open.
    return new ThreadedReportBatches(new BuiltInThread(NEVER_IDLE_MS, this.start), input);
  }
}

/** The longest delay a timer takes (a longer one would fire at once). */
const NEVER_IDLE_MS = 2 ** 31 - 1;

/**
 * The same reports as in-process (the same code on the same graph). Should the thread die, the
 * rest are written here, from the hierarchy as this side has saved it (reports written on the
 * thread but not yet received are written again).
 */
export class ThreadedReportBatches implements ExtractiveReportBatches {
  private readonly opened: Promise<void>;
  /** Loaded only if the thread fails (through marked, the module is not start-up's to pay). */
  private here: Promise<ExtractiveReportBook> | undefined;
  private closed = false;

  constructor(
    private readonly thread: BuiltInThread,
    private readonly input: ExtractiveReportsInput,
  ) {
    this.opened = thread.openReports(input);
    // Awaited by the first write; a failure meanwhile must not count as unhandled.
    this.opened.catch(() => {});
  }

  write(ids: string[], signal?: AbortSignal): Promise<WrittenReport[]> {
    if (this.closed) return Promise.reject(new BuiltInWorkStopped());
    return onThreadOrHere(
      this.thread,
      async () => {
        await this.opened;
        return this.thread.writeReports(ids, signal);
      },
      async () => {
        // Closed with this batch in hand (the step stopped or failed): dropped, not written here.
        if (this.closed) throw new BuiltInWorkStopped();
        this.here ??= import("../community/extractive-reports.js").then(
          ({ ExtractiveReportBook }) => new ExtractiveReportBook(this.input),
        );
        return (await this.here).write(ids);
      },
    );
  }

  /** Requests the thread answered (for diagnostics and tests). */
  get answeredOnThread(): number {
    return this.thread.answered;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.thread.close();
  }
}
