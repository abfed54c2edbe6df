import { chunkDocument } from "../ingest/chunker.js";
import { EMPTY_DOCUMENT_REASON, hasText } from "../ingest/empty-input.js";
import type { KgragServices } from "../services.js";
import type { DocumentRecord, SourceDocument } from "../types.js";
import { hashJson } from "../util/hash.js";

export interface RegistrationPlan {
  /** Documents whose chunks must be extracted and merged (new, changed or unfinished). */
  toProcess: string[];
  /** Documents already indexed with the same content: nothing to do. */
  unchanged: string[];
  /** Documents whose content changed: their old version must be removed first. */
  changed: string[];
  /** Documents seen before with the same content whose indexing did not finish (or failed). */
  resumed: string[];
}

export function contentHashOf(source: SourceDocument): string {
  return hashJson({ title: source.title, text: source.text, metadata: source.metadata });
}

/** Sorts incoming documents into unchanged, changed and new, without writing anything. */
export async function planRegistration(
  services: KgragServices,
  sources: SourceDocument[],
): Promise<RegistrationPlan> {
  const plan: RegistrationPlan = { toProcess: [], unchanged: [], changed: [], resumed: [] };
  // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
  const known = await Promise.all(sources.map((source) => services.store.getDocument(source.id)));
  for (const [i, source] of sources.entries()) {
    const existing = known[i];
    const hash = contentHashOf(source);
    if (existing && existing.contentHash === hash) {
      if (existing.status === "processed") plan.unchanged.push(source.id);
      else {
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
 * Stores the document and its chunks. Re-registering the same content keeps the chunks' state,
 * so a resumed run skips chunks that were already merged.
 */
export async function registerDocument(
  services: KgragServices,
  source: SourceDocument,
): Promise<DocumentRecord> {
  const { store, config } = services;
  const now = new Date().toISOString();
  const existing = await store.getDocument(source.id);
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
    const failed = { ...base, status: "failed" as const, error: EMPTY_DOCUMENT_REASON };
    await store.upsertDocument(failed);
    await store.replaceDocumentChunks(source.id, []);
    return failed;
  }
  const chunks = chunkDocument(source, config.chunking);
  const record = { ...base, chunkCount: chunks.length };
  await store.upsertDocument(record);
  await store.replaceDocumentChunks(source.id, chunks);
  return record;
}
