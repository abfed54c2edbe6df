import { setImmediate as nextTurn } from "node:timers/promises";
import { chunkDocument } from "../ingest/chunker.js";
import { EMPTY_DOCUMENT_REASON, hasText } from "../ingest/empty-input.js";
import type { KgragServices } from "../services.js";
import type { DocumentRegistration } from "../storage/graph-store.js";
import type { DocumentRecord, Metadata, SourceDocument } from "../types.js";
import { hashJson, stableStringify } from "../util/hash.js";
import { slices } from "../util/slices.js";
import { stopPoint } from "./stop-point.js";
import { documentBatchSize, registrationChunkLimit } from "./write-batches.js";

export interface RegistrationPlan {
  /** Documents whose chunks must be extracted and merged (new, changed or unfinished). */
  toProcess: string[];
  /** Documents already indexed with the same content and metadata: nothing to extract. */
  unchanged: string[];
  /**
   * Indexed documents with the same title and text whose metadata (other than provenance) changed:
   * their record takes the new metadata; nothing is extracted, embedded or clustered again.
   */
  metadataUpdated: string[];
  /** Documents whose content changed: their old version must be removed first. */
  changed: string[];
  /** Documents seen before with the same content whose indexing did not finish (or failed). */
  resumed: string[];
  /**
   * Records of unchanged and metadata-updated documents to rewrite in place: the new metadata, the
   * path of a moved folder (or another line of the same JSONL), or a content hash stored before
   * metadata was left out of it.
   */
  recordUpdates: DocumentRecord[];
}

/**
 * Metadata that says where a document was read from, not what it says: a corpus moved to another
 * folder (or a line moved within a JSONL file) is the same content and must not be extracted again.
 */
export const PROVENANCE_KEYS: ReadonlySet<string> = new Set(["source", "line"]);

/**
 * What a document says: its title and text. Metadata is not part of it: a change of metadata alone
 * updates the record in place (scope filters read metadata from the record), with no extraction.
 */
export function contentHashOf(source: Pick<SourceDocument, "title" | "text">): string {
  return hashJson({ title: source.title, text: source.text });
}

function withoutProvenance(metadata: Metadata): Metadata {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !PROVENANCE_KEYS.has(key)));
}

/**
 * The hashes stored before metadata was left out of the content hash, of this title and text with
 * `metadata`: title, text and the metadata that is not provenance, and before that all metadata.
 */
function earlierContentHashes(source: Pick<SourceDocument, "title" | "text">, metadata: Metadata): string[] {
  const { title, text } = source;
  return [
    hashJson({ title, text, metadata: withoutProvenance(metadata) }),
    hashJson({ title, text, metadata }),
  ];
}

/**
 * Whether `record` holds a hash an earlier version stored of this title and text with the metadata
 * stored beside it: one to rewrite as contentHashOf, before that metadata is edited.
 */
export function hasEarlierContentHash(
  record: DocumentRecord,
  source: Pick<SourceDocument, "title" | "text">,
): boolean {
  return earlierContentHashes(source, record.metadata).includes(record.contentHash);
}

/**
 * Whether the stored record has this title and text. A hash stored by an earlier version holds the
 * metadata too: it is checked with the metadata stored beside it and, in case that was edited
 * since (`updateDocumentMetadata`), with the metadata this read gives.
 */
function sameTitleAndText(existing: DocumentRecord, source: SourceDocument, hash: string): boolean {
  if (existing.contentHash === hash) return true;
  return [existing.metadata, source.metadata].some((metadata) =>
    earlierContentHashes(source, metadata).includes(existing.contentHash),
  );
}

function sameMetadata(a: Metadata, b: Metadata): boolean {
  return stableStringify(a) === stableStringify(b);
}

/**
 * The stored record of unchanged title and text with this read's path, metadata and content hash,
 * if any differs. A hash rewritten alone (stored by an earlier version) keeps the update time.
 */
function updatedRecord(
  existing: DocumentRecord,
  source: SourceDocument,
  hash: string,
): DocumentRecord | undefined {
  const sameRead = existing.path === source.path && sameMetadata(existing.metadata, source.metadata);
  if (sameRead && existing.contentHash === hash) return undefined;
  return {
    ...existing,
    path: source.path,
    metadata: source.metadata,
    contentHash: hash,
    updatedAt: sameRead ? existing.updatedAt : new Date().toISOString(),
  };
}

/** Sorts incoming documents into unchanged, metadata-updated, changed and new, without writing anything. */
export async function planRegistration(
  services: Pick<KgragServices, "store">,
  sources: SourceDocument[],
): Promise<RegistrationPlan> {
  const plan: RegistrationPlan = {
    toProcess: [],
    unchanged: [],
    metadataUpdated: [],
    changed: [],
    resumed: [],
    recordUpdates: [],
  };
  // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
  const known = await Promise.all(sources.map((source) => services.store.getDocument(source.id)));
  for (const [i, source] of sources.entries()) {
    const existing = known[i];
    const hash = contentHashOf(source);
    if (existing && sameTitleAndText(existing, source, hash)) {
      if (existing.status === "processed") {
        const metadataChanged = !sameMetadata(
          withoutProvenance(existing.metadata),
          withoutProvenance(source.metadata),
        );
        (metadataChanged ? plan.metadataUpdated : plan.unchanged).push(source.id);
        const record = updatedRecord(existing, source, hash);
        if (record) plan.recordUpdates.push(record);
      } else {
        // Registered again below, with this read's metadata.
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
