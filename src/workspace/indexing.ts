import { statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { z } from "zod";
import { embeddingCost } from "../embedding/embedding-cost.js";
import { isEmptySource, setAsideEmpty } from "../ingest/empty-input.js";
import { loadSources } from "../ingest/loaders.js";
import { MetadataSchema } from "../ingest/source-input.js";
import type { SkippedSource } from "../ingest/source-types.js";
import { stillPresent } from "../ingest/still-present.js";
import type { EmbeddingUsage } from "../llm/usage.js";
import { type PricedStageUsage, pricedStages, totalCost } from "../llm/usage-cost.js";
import { removeDocuments } from "../pipeline/delete-documents.js";
import {
  type ChunkedOtherwise,
  type ExtractedByOthers,
  type IndexComponents,
  type IndexFailure,
  type IndexRunResult,
  runIndexWorkflow,
} from "../pipeline/index-workflow.js";
import { IndexInterruptedError, progressOf } from "../pipeline/interrupted.js";
import type { StageTimings } from "../pipeline/stage-timings.js";
import type { KgragServices } from "../services.js";
import type { DocumentRecord, Metadata, SourceDocument } from "../types.js";
import { AbortSignalSchema } from "../util/abort-signal-schema.js";

export interface IndexOptions {
  /** Build communities and reports when the graph changed (default: config, true). */
  communities?: boolean;
  /**
   * Remove documents whose files disappeared from the indexed folders, and indexed documents whose
   * input is now empty. A file that is still there but cannot be read keeps its document.
   */
  prune?: boolean;
  /**
   * Stops the run at its next safe point (within about a second): the batch being merged is
   * committed, then `index` rejects with an IndexInterruptedError telling how far it got. Nothing
   * committed is lost and the next run resumes where this one stopped.
   */
  signal?: AbortSignal;
  /**
   * Metadata for every document of the call (`--meta key=value`), usable by the queries' metadata
   * filters: under a file's sidecar (`<file>.meta.json`), a .jsonl line's or a document's own.
   */
  metadata?: Metadata;
}

/** Strict: a misspelt option (`prnue`) would otherwise be dropped and the run go on without it. */
export const IndexOptionsSchema = z.strictObject({
  communities: z.boolean().optional(),
  prune: z.boolean().optional(),
  signal: AbortSignalSchema.optional(),
  metadata: MetadataSchema.optional(),
}) satisfies z.ZodType<IndexOptions>;

export interface IndexSummary {
  /** Workspace totals after the run. */
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  /** Documents in the workspace whose indexing failed. */
  failed: number;
  /** Model calls made by this run (cache hits excluded) and their tokens. */
  llmCalls: number;
  tokens: number;
  /**
   * What this run's chat calls and embedding requests cost at the configured prices (`llm.price`,
   * `stages.*.price`, `embedding.price`; 0 without them): the real figure for `index --dry-run`'s
   * `totals.cost`.
   */
  cost: number;
  /**
   * Requests this run sent to the embedding model and their input tokens, as the endpoint counted
   * them, with their cost at config `embedding.price` (0 without one): what `index --dry-run`
   * estimates as `embedding`. None with the offline hashing embedder.
   */
  embedding: EmbeddingUsage & { cost: number };
  durationMs: number;
  /** Wall time of each pipeline stage of this run (see StageTimings). */
  stages: StageTimings;
  added: string[];
  updated: string[];
  /** Seen before with the same content but unfinished or failed: picked up again. */
  resumed: string[];
  unchanged: string[];
  /**
   * Indexed before with the same title and text but other metadata (`--meta`, a sidecar, a line's
   * or a document's own; `source` and `line` aside): the record, which scope filters read, was
   * updated in place; nothing was extracted, embedded or clustered again.
   */
  metadataUpdated: string[];
  /**
   * Unchanged documents extracted by other extractors than this run's (the offline built-ins,
   * before a model was configured): they keep that graph; only new and edited documents are
   * extracted again. Absent when there are none.
   */
  extractedByOthers?: ExtractedByOthers;
  /**
   * Unchanged documents cut into chunks with other chunking settings than the configured ones:
   * they keep those chunks; the configured settings cut only new and edited documents.
   */
  chunkedOtherwise?: ChunkedOtherwise;
  removed: string[];
  /**
   * Documents whose files are gone from an indexed folder (or, for a .jsonl, whose line is gone);
   * removed only with `prune`.
   */
  missing: { docId: string; path: string }[];
  /** Inputs not indexed, with the reason; an unreadable or empty file names its `docId`. */
  skipped: SkippedSource[];
  failures: IndexFailure[];
  /** This run's chat calls per stage (`cachedCalls`: answered from the workspace cache), priced. */
  usage: Partial<Record<string, PricedStageUsage>>;
}

export async function indexPaths(
  services: KgragServices,
  components: IndexComponents,
  paths: string[],
  options: IndexOptions = {},
): Promise<IndexSummary> {
  const { documents, skipped } = await loadSources(
    paths,
    options.metadata ? { metadata: options.metadata } : {},
  );
  // The workspace may sit inside an indexed folder (./kgrag-data under .): the files found there
  // are not input. A file named itself is (the server keeps its uploads in the workspace).
  const workspace = resolve(services.config.workspace) + sep;
  const named = new Set(paths.map((path) => resolve(path)));
  const input = skipped.filter(
    (s) => named.has(fileOfSkipped(s.path, named)) || !resolve(s.path).startsWith(workspace),
  );
  return indexSources(services, components, documents, input, options, folderRoots(paths));
}

/** The file a skip is about: a .jsonl line's skip is named "file:line". */
function fileOfSkipped(path: string, named: ReadonlySet<string>): string {
  const line = /^(.*):\d+$/.exec(path);
  const file = line ? resolve(line[1] as string) : undefined;
  return file && named.has(file) ? file : resolve(path);
}

export async function indexSources(
  services: KgragServices,
  components: IndexComponents,
  sources: SourceDocument[],
  skipped: SkippedSource[],
  options: IndexOptions = {},
  roots: string[] = [],
): Promise<IndexSummary> {
  const { withText } = setAsideEmpty(sources);
  try {
    return await indexAll(services, components, sources, skipped, options, roots);
  } catch (error) {
    if (!options.signal?.aborted) throw error;
    const progress = await progressOf(
      services.store,
      withText.map((s) => s.id),
    );
    throw new IndexInterruptedError(progress, { cause: error });
  }
}

async function indexAll(
  services: KgragServices,
  components: IndexComponents,
  sources: SourceDocument[],
  skipped: SkippedSource[],
  options: IndexOptions,
  roots: string[],
): Promise<IndexSummary> {
  const started = Date.now();
  const before = services.usage.totals();
  const stagesBefore = services.usage.stages();
  const embeddedBefore = services.usage.embedding();
  const { withText, empty } = setAsideEmpty(sources);
  const inputIds = new Set([...sources.map((s) => s.id), ...skipped.flatMap((s) => s.docId ?? [])]);
  const missing = await findGoneDocuments(services, inputIds, skipped, roots);
  const pruned = options.prune ? missing.map((m) => m.docId) : [];
  if (pruned.length) await removeDocuments(services, pruned, "prune: file removed");
  const emptied = await settleSkippedDocuments(services, withText, [...skipped, ...empty], options);

  // Every input refused and nothing removed: the graph is left as it was (stale communities are
  // not rebuilt by a run that indexed nothing; `kgrag communities --rebuild` does that).
  const nothingToDo = withText.length === 0 && pruned.length === 0 && emptied.removed.length === 0;
  const run = nothingToDo
    ? await untouchedRun(services)
    : await runIndexWorkflow(services, components, withText, {
        communities: options.communities,
        signal: options.signal,
      });
  const after = services.usage.totals();
  const embedded = embeddingSince(services, embeddedBefore);
  const usage = pricedStages(services.config, services.usage.stagesSince(stagesBefore));
  const embeddingCostOfRun = embeddingCost(services.config, embedded.tokens);
  return {
    documents: run.counts.documents,
    chunks: run.counts.chunks,
    entities: run.counts.entities,
    relationships: run.counts.relationships,
    failed: run.counts.failedDocuments,
    llmCalls: after.calls - before.calls,
    tokens: after.promptTokens + after.completionTokens - (before.promptTokens + before.completionTokens),
    cost: totalCost(usage) + embeddingCostOfRun,
    embedding: { ...embedded, cost: embeddingCostOfRun },
    durationMs: Date.now() - started,
    stages: run.stages,
    added: run.added,
    updated: run.updated,
    resumed: run.resumed,
    unchanged: run.unchanged,
    metadataUpdated: run.metadataUpdated,
    ...(run.extractedByOthers ? { extractedByOthers: run.extractedByOthers } : {}),
    ...(run.chunkedOtherwise ? { chunkedOtherwise: run.chunkedOtherwise } : {}),
    removed: [...pruned, ...emptied.removed],
    missing: options.prune ? [] : missing,
    skipped: emptied.skipped,
    failures: run.failures,
    usage,
  };
}

/** The result of a run that had nothing to index: the graph's counts as they are. */
async function untouchedRun(services: KgragServices): Promise<IndexRunResult> {
  return {
    added: [],
    updated: [],
    resumed: [],
    unchanged: [],
    metadataUpdated: [],
    failures: [],
    graphChanged: false,
    counts: await services.store.counts(),
    stages: {},
  };
}

/** The embedding requests of this run: the tracker totals the whole process (queries too). */
function embeddingSince(services: KgragServices, before: EmbeddingUsage): EmbeddingUsage {
  const now = services.usage.embedding();
  return { requests: now.requests - before.requests, tokens: now.tokens - before.tokens };
}

function folderRoots(paths: string[]): string[] {
  return paths
    .map((p) => resolve(p))
    .filter((p) => {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false;
      }
    });
}

/**
 * Documents from a file under one of the indexed folders that were not loaded this time, and not
 * because their file was skipped while still there (unreadable now, or in an unreadable folder).
 */
async function findGoneDocuments(
  services: KgragServices,
  seen: ReadonlySet<string>,
  skipped: SkippedSource[],
  roots: string[],
): Promise<{ docId: string; path: string }[]> {
  if (roots.length === 0) return [];
  const unseen = (await services.store.listDocuments()).filter(
    (d): d is DocumentRecord & { path: string } =>
      d.path !== null && !seen.has(d.id) && roots.some((root) => d.path?.startsWith(root + sep)),
  );
  const gone: { docId: string; path: string }[] = [];
  for (const doc of unseen) {
    if (!(await stillPresent(doc.path, skipped))) gone.push({ docId: doc.id, path: doc.path });
  }
  return gone;
}

const KEPT = "its indexed version is kept";

/**
 * Stored documents whose input was skipped. An unreadable file's is kept, `prune` or not: the file
 * is still there. Only one that failed before holds nothing worth keeping, so `prune` removes it.
 * An empty one never indexed (an empty document an older version recorded as failed) holds nothing
 * and is removed; one indexed before is treated like a removed file: kept and reported, and
 * removed only with `prune`.
 */
async function settleSkippedDocuments(
  services: KgragServices,
  withText: SourceDocument[],
  skipped: SkippedSource[],
  options: IndexOptions,
): Promise<{ removed: string[]; skipped: SkippedSource[] }> {
  const stillHasText = new Set(withText.map((s) => s.id));
  const removed: string[] = [];
  const reported: SkippedSource[] = [];
  for (const skip of skipped) {
    const stored =
      skip.docId && !stillHasText.has(skip.docId) ? await services.store.getDocument(skip.docId) : null;
    if (!stored) {
      reported.push(skip);
      continue;
    }
    const settled = isEmptySource(skip) ? settleEmptied(stored, options) : settleUnreadable(stored, options);
    if (settled.remove) removed.push(stored.id);
    reported.push(settled.note ? { ...skip, reason: `${skip.reason}; ${settled.note}` } : skip);
  }
  if (removed.length) await removeDocuments(services, removed, "input is now empty or unreadable");
  return { removed, skipped: reported };
}

function wasIndexed(doc: DocumentRecord): boolean {
  return doc.chunkCount > 0;
}

interface Settled {
  remove: boolean;
  /** Appended to the skip reason; none when there is nothing to add. */
  note?: string;
}

function settleEmptied(stored: DocumentRecord, options: IndexOptions): Settled {
  if (!wasIndexed(stored)) return { remove: true };
  return options.prune
    ? { remove: true, note: "its indexed version was removed (prune)" }
    : { remove: false, note: `${KEPT}: index with --prune to remove it` };
}

/**
 * A file that is there but cannot be read now (locked, permissions) keeps whatever it indexed. Only
 * a failed document that never got a chunk holds nothing, and --prune may clear it; one that
 * failed part-way (a chunk or a summary) keeps its merged facts.
 */
function settleUnreadable(stored: DocumentRecord, options: IndexOptions): Settled {
  if (stored.status !== "failed" || wasIndexed(stored)) {
    return { remove: false, note: wasIndexed(stored) ? KEPT : undefined };
  }
  return options.prune
    ? { remove: true, note: "its failed document was removed (prune)" }
    : { remove: false, note: "its failed document is kept: index with --prune to remove it" };
}
