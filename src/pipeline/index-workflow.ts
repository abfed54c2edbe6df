import { setImmediate, setTimeout as sleep } from "node:timers/promises";
import type { Clusterer, Clustering } from "../community/cluster.js";
import type { ExtractiveReportsHost } from "../community/extractive-reports.js";
import { loadClusteringLibraries } from "../community/project-graph.js";
import type { ReportWriter } from "../community/report-writer.js";
import type { ExtractionRun, Extractor } from "../extraction/extractor.js";
import { stageRequestsSent } from "../llm/requests-sent.js";
import { stageSettings } from "../llm/stage-models.js";
import type { DescriptionSummarizer } from "../merge/summarizer.js";
import type { KgragServices } from "../services.js";
import type { GraphView } from "../storage/graph-store.js";
import { inSpan, SPANS } from "../telemetry/spans.js";
import type { GraphCounts, SourceDocument } from "../types.js";
import { slices } from "../util/slices.js";
import { chunkingLabel, recordChunking, recordedChunkings } from "../workspace/chunking-record.js";
import { recordExtraction, recordedExtractors } from "../workspace/embedding-guard.js";
import { BatchChannel } from "./batch-channel.js";
import { communitiesAreStale, markCommunitiesFresh, markCommunitiesStale } from "./community-freshness.js";
import { type CommunityRunOptions, createCommunities, warmStartOf } from "./create-communities.js";
import { createCommunityReports } from "./create-community-reports.js";
import { removeDocuments } from "./delete-documents.js";
import {
  embedChunks,
  embedGraph,
  GRAPH_VECTOR_NAMESPACES,
  type GraphVectorNamespace,
} from "./embed-graph.js";
import { extractGraph } from "./extract-graph.js";
import { finalizeDocuments } from "./finalize-documents.js";
import { loadGraphView } from "./graph-view.js";
import { planRegistration, type RegistrationPlan, registerDocuments } from "./register-documents.js";
import { askReportsAhead, ReportsAhead } from "./reports-ahead.js";
import { resolutionRuns, resolveEntities } from "./resolve-entities.js";
import { StageClock, type StageTimings } from "./stage-timings.js";
import { stopPoint } from "./stop-point.js";
import { type SummarizeResult, summarizeDescriptions } from "./summarize-descriptions.js";
import { documentBatchSize } from "./write-batches.js";

/** The stage implementations chosen for this workspace: LLM-backed or the offline built-ins. */
export interface IndexComponents {
  extractor: Extractor;
  summarizer: DescriptionSummarizer;
  reportWriter: ReportWriter;
  /** Where the community hierarchy is built (in-process when absent). */
  clusterer?: Clusterer;
  /** Where many offline reports are written (in-process when absent). */
  reportsOffThread?: ExtractiveReportsHost;
}

export interface IndexRunOptions {
  /** Build communities and reports when the graph changed (default true, from config). */
  communities?: boolean;
  /**
   * Stops the run at its next safe point (after the current merge batch, embedding batch or
   * report), throwing the signal's reason. What was committed stays; the next run resumes.
   */
  signal?: AbortSignal;
  /** Collects the wall time of each stage (a fresh clock per run when absent). */
  clock?: StageClock;
}

/** A document left failed by a run: its title (the file name, for a file) says which one to a reader. */
export interface IndexFailure {
  docId: string;
  title: string;
  error: string;
}

export interface IndexRunResult {
  added: string[];
  updated: string[];
  resumed: string[];
  unchanged: string[];
  /** Same title and text with other metadata: the record was updated in place, nothing extracted. */
  metadataUpdated: string[];
  /**
   * Set when the unchanged documents were extracted by other extractors than this run's (the
   * offline built-ins before a model was configured): they keep that graph.
   */
  extractedByOthers?: ExtractedByOthers;
  /**
   * Set when the unchanged documents were cut into chunks with other chunking settings than the
   * configured ones: they keep those chunks.
   */
  chunkedOtherwise?: ChunkedOtherwise;
  failures: IndexFailure[];
  graphChanged: boolean;
  counts: GraphCounts;
  /** Wall time per stage, as this run measured it. */
  stages: StageTimings;
}

/** Unchanged documents kept as other extractors made them, and which those were. */
export interface ExtractedByOthers {
  documents: number;
  extractors: string[];
}

/** Unchanged documents kept as other chunking settings cut them, which those were, and the configured ones. */
export interface ChunkedOtherwise {
  documents: number;
  chunking: string[];
  configured: string;
}

/**
 * The indexing pipeline, as small named steps in order (GraphRAG-style workflows):
 * register documents -> remove old versions -> extract and merge -> summarize descriptions ->
 * embed -> finalize statuses -> communities -> community reports.
 */
export function runIndexWorkflow(
  services: KgragServices,
  components: IndexComponents,
  sources: SourceDocument[],
  options: IndexRunOptions = {},
): Promise<IndexRunResult> {
  return inSpan(SPANS.index, { "kgrag.documents": sources.length }, async (span) => {
    const result = await indexWorkflow(services, components, sources, options);
    span.setAttributes({
      "kgrag.documents.added": result.added.length,
      "kgrag.documents.updated": result.updated.length,
      "kgrag.documents.failed": result.failures.length,
      "kgrag.graph.entities": result.counts.entities,
      "kgrag.graph.relationships": result.counts.relationships,
    });
    return result;
  });
}

/** One named span per stage, so a trace shows where an index run spends its time; timed on `clock`. */
function stage<T>(name: string, work: () => Promise<T>, clock?: StageClock): Promise<T> {
  const spanned = () => inSpan(SPANS.indexStage(name), {}, work);
  return clock ? clock.time(name, spanned) : spanned();
}

async function indexWorkflow(
  services: KgragServices,
  components: IndexComponents,
  sources: SourceDocument[],
  options: IndexRunOptions,
): Promise<IndexRunResult> {
  const { signal } = options;
  const clock = options.clock ?? new StageClock();
  const plan = await planRegistration(services, sources);
  const extractedBy = await recordedExtractors(services.store);
  const chunkedWith = await recordedChunkings(services.store);
  const chunking = chunkingLabel(services.config.chunking);
  await removeDocuments(services, plan.changed, "update document");
  // Same title and text from a new place or with new metadata: the record follows the read, the
  // graph, vectors and communities stay as they are (scope filters read metadata from the record).
  await services.store.upsertDocuments(plan.recordUpdates);

  // Extraction starts on the first registered documents while the others are chunked and stored.
  const registered = new BatchChannel<string[]>();
  const registration = registerForExtraction(services, plan, sources, registered, signal, clock);
  // Chunk vectors need only the chunks: embedding them while the model extracts keeps both busy
  // (the two stages' times overlap in the run's stage timings). The chunks' search index is left
  // for later: building it is synchronous work that would hold back the extraction requests.
  const chunkVectors = holdFailure(
    plan.toProcess.length > 0
      ? registration.then(() => stage("embed-chunks", () => embedChunks(services, signal), clock))
      : registration,
  );
  // The chunks' full-text rows too, a few chunks per step between the replies (left for the run's
  // end, that synchronous work held back the last report requests), from a pause after the first
  // extraction request on (started at once, its steps held back the first requests) until
  // extraction is over: what is left then is indexed in one go with the other search indexes.
  const firstRequest = settleOnce();
  const extractionOver = new AbortController();
  const chunkTextUntil = signal ? AbortSignal.any([signal, extractionOver.signal]) : extractionOver.signal;
  const chunkText = holdFailure(
    plan.toProcess.length > 0
      ? firstRequest.settled.then(async () => {
          // A request takes several turns of the event loop to go out: once the first round is
          // written, the first slice's one-off costs (the sentence segmenter's locale data, 40-80
          // ms) and the clustering libraries' load use the wait for its replies instead of holding
          // back those requests or the next ones when the replies come back together.
          await firstRoundSent(services, components.extractor, chunkTextUntil);
          components.extractor.warmUp?.();
          // Left out of start-up, loaded here rather than between the last reply and the reports.
          if (options.communities ?? services.config.community.enabled) loadClusteringLibraries();
          return indexChunkText(services, chunkTextUntil, clock);
        })
      : Promise.resolve(),
  );
  const extractor = signallingFirstCall(components.extractor, firstRequest.settle, {
    documents: plan.toProcess.length,
  });
  let extracted: Awaited<ReturnType<typeof extractGraph>>;
  try {
    extracted = await stage(
      "extract",
      () => extractGraph(services, extractor, registered, signal, clock),
      clock,
    );
  } finally {
    extractionOver.abort();
    firstRequest.settle();
    await Promise.all([chunkVectors, chunkText]);
  }
  if (extracted.merged > 0) await recordExtraction(services.store, components.extractor.kind);
  if (plan.toProcess.length > 0) await recordChunking(services.store, chunking);
  // A failure of the chunk vectors (or text) fails the run where the settling step would have.
  const rethrowChunkVectorFailure = await chunkVectors;
  const rethrowChunkTextFailure = await chunkText;
  await stopPoint(signal);
  const reportWriter = new ReportsAhead(components.reportWriter);
  let settled: SettleResult;
  let graphChanged: boolean;
  try {
    const resolving =
      extracted.merged > 0 ? stage("resolve", () => resolveEntities(services, signal), clock) : undefined;
    // Beside resolution, which sends its requests first: the reports that do not depend on it.
    if (resolving && resolutionRuns(services) && (options.communities ?? services.config.community.enabled)) {
      // Resolution's failure is thrown where it is awaited, below, not as an unhandled rejection.
      resolving.catch(() => {});
      await setImmediate();
      // A failing read here costs only the head start: the run's own steps read the same again.
      await askReportsAhead(services, reportWriter, services.config.indexOverlap.reportsAhead).catch(
        () => {},
      );
    }
    const resolved = resolving ? await resolving : { merged: 0 };
    graphChanged = extracted.merged > 0 || plan.changed.length > 0 || resolved.merged > 0;
    try {
      rethrowChunkVectorFailure();
      rethrowChunkTextFailure();
      settled = await settleGraph(services, { ...components, reportWriter }, graphChanged, {
        ...options,
        clock,
      });
    } catch (error) {
      // A stopped run is left as a kill leaves it (documents processing): it failed at nothing.
      if (!signal?.aborted) await markUnsettled(services, plan.toProcess, error);
      throw error;
    }
  } finally {
    await reportWriter.settled();
  }
  const { failed } = await finalizeDocuments(services, plan.toProcess, settled.summaryFailures);

  const failedDocs = await Promise.all(failed.map((docId) => services.store.getDocument(docId)));
  const failures = failed.map((docId, i) => ({
    docId,
    title: failedDocs[i]?.title ?? docId,
    error: failedDocs[i]?.error ?? "failed",
  }));
  const seenBefore = new Set([...plan.changed, ...plan.resumed]);
  const added = plan.toProcess.filter((id) => !seenBefore.has(id));
  // Documents whose metadata alone changed keep their graph and chunks as unchanged ones do.
  const kept = plan.unchanged.length + plan.metadataUpdated.length;
  return {
    added,
    updated: plan.changed,
    resumed: plan.resumed,
    unchanged: plan.unchanged,
    metadataUpdated: plan.metadataUpdated,
    ...(kept > 0 && extractedBy.length > 0 && !extractedBy.includes(components.extractor.kind)
      ? { extractedByOthers: { documents: kept, extractors: extractedBy } }
      : {}),
    ...(kept > 0 && chunkedWith.length > 0 && !chunkedWith.includes(chunking)
      ? { chunkedOtherwise: { documents: kept, chunking: chunkedWith, configured: chunking } }
      : {}),
    failures,
    graphChanged,
    counts: await services.store.counts(),
    stages: clock.snapshot(),
  };
}

/**
 * Registers the documents to process, handing each committed batch's ids to `registered` (the
 * first batch cut small, indexOverlap.firstRegistrationChunks, so extraction starts early; with 0,
 * all of them once every document is registered), then marks the communities stale. The channel
 * is closed after that, so no merge (they wait for it) comes before the mark, or failed with the
 * registration's error.
 */
function registerForExtraction(
  services: KgragServices,
  plan: RegistrationPlan,
  sources: SourceDocument[],
  registered: BatchChannel<string[]>,
  signal: AbortSignal | undefined,
  clock: StageClock,
): Promise<void> {
  const byId = new Map(sources.map((s) => [s.id, s]));
  const toRegister = plan.toProcess.flatMap((id) => byId.get(id) ?? []);
  const firstBatchChunks = services.config.indexOverlap.firstRegistrationChunks;
  const listener =
    firstBatchChunks > 0 ? { firstBatchChunks, onRegistered: (ids: string[]) => registered.push(ids) } : {};
  const registration = stage(
    "register",
    () => registerDocuments(services, toRegister, signal, listener),
    clock,
  ).then(async () => {
    if (firstBatchChunks === 0) registered.push(plan.toProcess);
    if (plan.toProcess.length > 0) await markCommunitiesStale(services.store);
  });
  registration.then(
    () => registered.close(),
    (error: unknown) => registered.fail(error),
  );
  return registration;
}

/** Waits `ms`, or less when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => {});
}

/**
 * After the first extraction call: with a model, until one request per concurrent call has been
 * written (at most `firstRoundWaitMs`); otherwise a pause of `chunkTextPauseMs`.
 */
async function firstRoundSent(
  services: KgragServices,
  extractor: Extractor,
  signal: AbortSignal,
): Promise<void> {
  const { chunkTextPauseMs, firstRoundWaitMs } = services.config.indexOverlap;
  // Extraction may have a model of its own under `stages`, with its own number of calls in flight.
  const concurrency = stageSettings(services.config, "extract")?.concurrency;
  if (extractor.kind !== "llm" || !concurrency) return pause(chunkTextPauseMs, signal);
  const waited = new AbortController();
  const until = AbortSignal.any([signal, waited.signal]);
  await Promise.race([stageRequestsSent("extract", concurrency, until), pause(firstRoundWaitMs, until)]);
  waited.abort();
}

/** A promise settled by the first call of `settle` (later calls do nothing). */
function settleOnce(): { settled: Promise<void>; settle: () => void } {
  let settle = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { settled, settle };
}

/**
 * The extractor, calling `onCall` as each extraction starts; its run starts knowing `run` (the
 * documents arrive in batches, so extractGraph cannot count them up front).
 */
function signallingFirstCall(extractor: Extractor, onCall: () => void, run: ExtractionRun): Extractor {
  return {
    kind: extractor.kind,
    ...(extractor.inFlight === undefined ? {} : { inFlight: extractor.inFlight }),
    beginRun: () => extractor.beginRun?.(run),
    warmUp: () => extractor.warmUp?.(),
    extract: (chunk, context) => {
      onCall();
      return extractor.extract(chunk, context);
    },
  };
}

/** Indexes the registered chunks' text beside extraction, where the store can do it in steps. */
function indexChunkText(services: KgragServices, signal?: AbortSignal, clock?: StageClock): Promise<void> {
  const { chunkTextRowsPerSlice: rows, chunkTextPauseMs: pauseMs } = services.config.indexOverlap;
  const { store } = services;
  if (rows === 0 || !store.indexChunkText) return Promise.resolve();
  const slices = { rows, pauseMs };
  return stage("chunk text index", () => store.indexChunkText?.(slices, signal) ?? Promise.resolve(), clock);
}

/**
 * A promise whose failure is held, not thrown, until asked for: work started alongside another
 * stage must not reject unobserved when that stage fails first. Resolves to a function that
 * rethrows the failure, if any.
 */
function holdFailure(work: Promise<unknown>): Promise<() => void> {
  return work.then(
    () => () => {},
    (error: unknown) => () => {
      throw error;
    },
  );
}

export interface SettleResult {
  /** Descriptions whose summary failed: they keep their joined fragments until the next run. */
  summaryFailures: SummarizeResult["failed"];
}

/**
 * Brings everything derived from the merged graph up to date: summaries of descriptions that grew,
 * vectors of whatever changed, then communities and their reports. Used after indexing and after
 * deleting documents.
 */
export async function settleGraph(
  services: KgragServices,
  components: IndexComponents,
  graphChanged: boolean,
  options: IndexRunOptions = {},
): Promise<SettleResult> {
  const { signal, clock } = options;
  const wantCommunities = options.communities ?? services.config.community.enabled;
  const hierarchy = wantCommunities
    ? await clusterAhead(services, components, graphChanged, options)
    : undefined;
  const summarized = await stage(
    "summarize",
    () => summarizeDescriptions(services, components.summarizer, signal),
    clock,
  );
  await stopPoint(signal);
  // A summary retried from an earlier run changes descriptions, and so the communities' content.
  const descriptionsChanged = summarized.entities + summarized.relationships > 0;
  // Read once for embedding, communities and reports: none of them changes it.
  const graph = await stage("read graph", () => loadGraphView(services.store), clock);
  // Vectors and communities both start from the settled graph and write different things, so
  // vectors are written side by side with the clustering and the reports (see vectorsBesideCommunities)
  // instead of leaving the model or the database idle in between (their stage times overlap).
  const beside = vectorsBesideCommunities(services.store);
  const inTurn = GRAPH_VECTOR_NAMESPACES.filter((ns) => !beside.includes(ns));
  if (inTurn.length > 0) await stage("embed", () => embedGraph(services, signal, graph, inTurn), clock);
  const vectors = holdFailure(
    stage(
      inTurn.length > 0 ? "embed beside communities" : "embed",
      () => embedGraph(services, signal, graph, beside),
      clock,
    ).then(() => (graphChanged || descriptionsChanged ? refreshSearchIndexes(services, clock) : undefined)),
  );
  try {
    if (wantCommunities) {
      await refreshCommunities(services, components, graphChanged || descriptionsChanged, {
        signal,
        clock,
        graph,
        hierarchy: hierarchy?.nodes,
      });
    }
  } finally {
    await vectors;
  }
  (await vectors)();
  return { summaryFailures: summarized.failed };
}

/**
 * The vector namespaces written while communities and reports are. On the embedded store, all:
 * its transactions never wait on each other. On Neo4j, relationship vectors only (most of the
 * vectors): a relationship vector is set on its RELATED edge, which locks that edge alone, while
 * entity vectors and community membership both lock entity nodes, and their concurrent
 * transactions waited on each other's locks (measured: 118 s in turns, 174 s side by side, on
 * HotpotQA-100 offline), so entity and chunk vectors are written first.
 */
function vectorsBesideCommunities(store: KgragServices["store"]): readonly GraphVectorNamespace[] {
  return store.kind === "sqlite" ? GRAPH_VECTOR_NAMESPACES : ["relationships"];
}

/** The writer does this after every run anyway; done here, the run's timings show what it costs. */
function refreshSearchIndexes(services: KgragServices, clock?: StageClock): Promise<void> {
  return stage("search indexes", async () => services.store.refreshIndexes?.(), clock);
}

/**
 * Clustering reads no description, so when the run will re-cluster, the hierarchy is started
 * (on the built-ins' thread) before summaries are written, and the main thread summarises
 * meanwhile. Undefined when the store cannot list the lean graph or nothing is to re-cluster.
 */
async function clusterAhead(
  services: KgragServices,
  components: IndexComponents,
  graphChanged: boolean,
  { signal, clock }: IndexRunOptions,
): Promise<{ nodes: Promise<Clustering> } | undefined> {
  const { store, config } = services;
  const { clusterer } = components;
  if (!clusterer || !store.listClusterGraph) return undefined;
  if (!(await needsClustering(store, graphChanged))) return undefined;
  const { maxClusterSize, seed } = config.community;
  const graph = await store.listClusterGraph();
  const warmStart = await warmStartOf(services);
  // Its stage time runs beside the summaries' (the communities stage then only records the result).
  const nodes = stage(
    "cluster ahead",
    () => clusterer.hierarchy(graph, { maxClusterSize, seed, warmStart }, signal),
    clock,
  );
  // Awaited by the communities step; a failure meanwhile must not count as unhandled.
  nodes.catch(() => {});
  // In an object: an async function would wait for a promise it returns.
  return { nodes };
}

/** The graph changed since it was clustered, or it never was. */
async function needsClustering(store: KgragServices["store"], graphChanged: boolean): Promise<boolean> {
  return graphChanged || (await store.listCommunities()).length === 0 || (await communitiesAreStale(store));
}

/** What an index run hands to refreshCommunities besides the community options. */
export interface CommunityRefresh extends CommunityRunOptions {
  signal?: AbortSignal;
  clock?: StageClock;
  graph?: GraphView;
  /** The clustering of the current graph started ahead (clusterAhead). */
  hierarchy?: Promise<Clustering>;
}

/** Re-clusters when the graph changed (or no hierarchy exists yet) and writes the missing reports. */
export async function refreshCommunities(
  services: KgragServices,
  components: Pick<IndexComponents, "reportWriter" | "reportsOffThread">,
  graphChanged: boolean,
  refresh: CommunityRefresh = {},
): Promise<void> {
  const { signal, clock, graph, hierarchy, ...options } = refresh;
  const { store } = services;
  await stopPoint(signal);
  // A hierarchy clustered ahead was started because clustering is needed: not read again.
  if (hierarchy || (await needsClustering(store, graphChanged))) {
    await stage("communities", () => createCommunities(services, graph, hierarchy, options), clock);
    await markCommunitiesFresh(store);
  }
  await stage(
    "reports",
    () =>
      createCommunityReports(services, components.reportWriter, signal, graph, components.reportsOffThread),
    clock,
  );
}

/**
 * A run that merged its chunks but could not finish the graph (e.g. the embedding endpoint failed)
 * leaves its documents failed with the reason: nothing merged is lost, and the next run picks them
 * up again and redoes only what is missing.
 */
async function markUnsettled(services: KgragServices, docIds: string[], error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  const { store } = services;
  for (const batch of slices(docIds, documentBatchSize(services))) {
    const docs = await Promise.all(batch.map((docId) => store.getDocument(docId)));
    await store.setDocumentStatuses(
      docs.flatMap((doc) =>
        doc && doc.status !== "failed"
          ? [{ id: doc.id, status: "failed" as const, error: `indexing did not finish: ${reason}` }]
          : [],
      ),
    );
  }
}
