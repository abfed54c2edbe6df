import { splitRelationshipKey } from "../merge/keys.js";
import type { KgragServices } from "../services.js";
import type { DocumentStatusUpdate } from "../storage/graph-store.js";
import type { ChunkState } from "../types.js";
import { slices } from "../util/slices.js";
import type { SummarizeResult } from "./summarize-descriptions.js";
import { documentBatchSize } from "./write-batches.js";

type SummaryFailure = SummarizeResult["failed"][number];

/**
 * A document is processed once every chunk is merged and every description it contributes to is
 * summarised; otherwise it is failed with the reason, and the next run retries exactly that. A
 * partial chunk (merged from a cut-short answer) leaves it failed too, so it is asked again.
 */
export async function finalizeDocuments(
  services: KgragServices,
  docIds: string[],
  summaryFailures: SummaryFailure[] = [],
): Promise<{ failed: string[] }> {
  const unsummarized = await unsummarizedReasons(services, summaryFailures);
  const { store } = services;
  const failed: string[] = [];
  // A batch's reads go together (one round trip each on Neo4j) and its statuses in one transaction.
  for (const batch of slices(docIds, documentBatchSize(services))) {
    const [docs, states] = await Promise.all([
      Promise.all(batch.map((docId) => store.getDocument(docId))),
      Promise.all(batch.map((docId) => store.getChunkStates(docId))),
    ]);
    const updates: DocumentStatusUpdate[] = [];
    for (const [i, docId] of batch.entries()) {
      const doc = docs[i];
      if (!doc) continue;
      const update = doc.status === "failed" ? undefined : finalStatus(docId, states[i] ?? [], unsummarized);
      if (update) updates.push(update);
      if (!update || update.status === "failed") failed.push(docId);
    }
    await store.setDocumentStatuses(updates);
  }
  return { failed };
}

/** Processed when every chunk is merged and every description summarised; else failed, with why. */
function finalStatus(
  docId: string,
  states: ChunkState[],
  unsummarized: Map<string, string>,
): DocumentStatusUpdate {
  const broken = states.filter((s) => s.status !== "merged");
  if (broken.length === 0 && !unsummarized.has(docId)) return { id: docId, status: "processed", error: null };
  const reasons = [...new Set(broken.map((s) => s.error ?? s.status))].slice(0, 3).join("; ");
  const error = broken.length
    ? `${broken.length} of ${states.length} chunks not fully merged: ${reasons}`
    : (unsummarized.get(docId) ?? "");
  return { id: docId, status: "failed", error };
}

/** Why each document behind a description whose summary failed is not finished (first reason). */
async function unsummarizedReasons(
  services: KgragServices,
  failures: SummaryFailure[],
): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  const { store } = services;
  for (const failure of failures) {
    const [record] =
      failure.kind === "entity"
        ? await store.getEntities([failure.key])
        : await store.getRelationships([failure.key]);
    if (!record) continue;
    const label = "name" in record ? record.name : splitRelationshipKey(record.key).join(" — ");
    const reason = `the description summary of ${failure.kind} "${label}" failed: ${failure.error}`;
    for (const chunk of await store.getChunks(record.sourceChunkIds)) {
      if (!reasons.has(chunk.docId)) reasons.set(chunk.docId, reason);
    }
  }
  return reasons;
}
