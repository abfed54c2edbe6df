import { setImmediate as nextTurn } from "node:timers/promises";
import { chunkDocument } from "../ingest/chunker.js";
import { EMPTY_DOCUMENT_REASON, hasText } from "../ingest/empty-input.js";
import type { KgragServices } from "../services.js";
import type { DocumentRegistration } from "../storage/graph-store.js";
import type { DocumentRecord, SourceDocument } from "../types.js";
import { hashJson, stableStringify } from "../util/hash.js";
import { slices } from "../util/slices.js";
import { stopPoint } from "./stop-point.js";
import { documentBatchSize, registrationChunkLimit } from "./write-batches.js";

export interface RegistrationPlan {
  /** Documents whose chunks must be extracted and merged (new, changed or unfinished). */
  toProcess: string[];
  /** Documents already indexed with the same content: nothing to do. */
  unchanged: string[];
  /** Documents whose content changed: their old version must be removed first. */
  changed: string[];
  /** Documents seen before with the same content whose indexing did not finish (or failed). */
  resumed: string[];
  /**
   * Unchanged documents read from another place (a moved folder, another line of the same JSONL):
   * their record takes the new path and metadata; nothing is extracted again.
   */
  moved: DocumentRecord[];
}

/**
 * Metadata that says where a document was read from, not what it says: a corpus moved to another
 * folder (or a line moved within a JSONL file) is the same content and must not be extracted again.
 */
const PROVENANCE_KEYS = new Set(["source", "line"]);

/** What a document says: title, text and the metadata that is not provenance. */
export function contentHashOf(source: SourceDocument): string {
  const metadata = Object.fromEntries(
    Object.entries(source.metadata).filter(([key]) => !PROVENANCE_KEYS.has(key)),
  );
  return hashJson({ title: source.title, text: source.text, metadata });
}

/** The hash stored before provenance was left out: it still marks content as unchanged. */
function legacyContentHashOf(source: SourceDocument): string {
  return hashJson({ title: source.title, text: source.text, metadata: source.metadata });
}

/** The stored record of unchanged content with this read's path and metadata, if either differs. */
function movedRecord(
  existing: DocumentRecord,
  source: SourceDocument,
  hash: string,
): DocumentRecord | undefined {
  const same =
    existing.contentHash === hash &&
    existing.path === source.path &&
    stableStringify(existing.metadata) === stableStringify(source.metadata);
  if (same) return undefined;
  return {
    ...existing,
    path: source.path,
    metadata: source.metadata,
    contentHash: hash,
    updatedAt: new Date().toISOString(),
  };
}

/** Sorts incoming documents into unchanged, changed and new, without writing anything. */
export async function planRegistration(
  services: KgragServices,
  sources: SourceDocument[],
): Promise<RegistrationPlan> {
  const plan: RegistrationPlan = { toProcess: [], unchanged: [], changed: [], resumed: [], moved: [] };
  // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
  const known = await Promise.all(sources.map((source) => services.store.getDocument(source.id)));
  for (const [i, source] of sources.entries()) {
    const existing = known[i];
    const hash = contentHashOf(source);
    if (existing && (existing.contentHash === hash || existing.contentHash === legacyContentHashOf(source))) {
      if (existing.status === "processed") {
        plan.unchanged.push(source.id);
        const moved = movedRecord(existing, source, hash);
        if (moved) plan.moved.push(moved);
      } else {
        plan.toProcess.push(source.id);
        plan.resumed.push(source.id);
      }
      continue;
    }
    if (existing) plan.changed.push(source.id);
    plan.toProcess.push(source.id);
  }
  return plan;
}

/**
 * Stores the documents and their chunks, a batch per transaction (documentBatchSize documents, cut
 * earlier at registrationChunkLimit chunks). Re-registering the same content keeps the chunks'
 * state, so a resumed run skips chunks that were already merged. A stop request is honoured
 * before each batch is written. `onRegistered` gets each batch's document ids once committed; the
 * first batch is cut at `firstBatchChunks` chunks (when above 0), so that the next step can start
 * on it while the rest is chunked and stored.
 */
export async function registerDocuments(
  services: KgragServices,
  sources: SourceDocument[],
  signal?: AbortSignal,
  { onRegistered, firstBatchChunks = 0 }: RegistrationListener = {},
): Promise<void> {
  const { store, config, progress } = services;
  const maxDocuments = documentBatchSize(services);
  const maxChunks = registrationChunkLimit(services);
  let chunkLimit = firstBatchChunks > 0 ? Math.min(firstBatchChunks, maxChunks) : maxChunks;
  let batch: DocumentRegistration[] = [];
  let chunks = 0;
  let handedOn = false;
  const write = async () => {
    await stopPoint(signal);
    await store.registerDocuments(batch);
    progress.advance("register", batch.length);
    onRegistered?.(batch.map((registration) => registration.document.id));
    handedOn = onRegistered !== undefined;
    batch = [];
    chunks = 0;
    chunkLimit = maxChunks;
  };
  progress.start("register", sources.length);
  for (const slice of slices(sources, maxDocuments)) {
    // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
    const existing = await Promise.all(slice.map((source) => store.getDocument(source.id)));
    const now = new Date().toISOString();
    for (const [i, source] of slice.entries()) {
      const registration = registrationOf(source, existing[i], config.chunking, now);
      batch.push(registration);
      chunks += registration.chunks.length;
      if (batch.length >= maxDocuments || chunks >= chunkLimit) await write();
      // Chunking is synchronous (and so is the embedded store): once a batch is handed on, the next
      // step's requests and replies get a turn between documents, not only after the next batch.
      else if (handedOn) await nextTurn();
    }
  }
  if (batch.length > 0) await write();
  progress.finish("register");
}

export interface RegistrationListener {
  onRegistered?: (docIds: string[]) => void;
  firstBatchChunks?: number;
}

/** A source's document record (keeping its first creation time) and chunks. */
function registrationOf(
  source: SourceDocument,
  existing: DocumentRecord | undefined,
  chunking: KgragServices["config"]["chunking"],
  now: string,
): DocumentRegistration {
  const base: DocumentRecord = {
    id: source.id,
    title: source.title,
    path: source.path,
    contentHash: contentHashOf(source),
    status: "processing",
    error: null,
    metadata: source.metadata,
    chunkCount: 0,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  // indexSources() sets empty documents aside as skipped; this guards direct pipeline callers.
  if (!hasText(source.text)) {
    return { document: { ...base, status: "failed", error: EMPTY_DOCUMENT_REASON }, chunks: [] };
  }
  const chunks = chunkDocument(source, chunking);
  return { document: { ...base, chunkCount: chunks.length }, chunks };
}
