import { splitRelationshipKey } from "../merge/keys.js";
import type { KgragServices } from "../services.js";
import type { SummarizeResult } from "./summarize-descriptions.js";

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
  const failed: string[] = [];
  for (const docId of docIds) {
    const doc = await services.store.getDocument(docId);
    if (!doc || doc.status === "failed") {
      if (doc) failed.push(docId);
      continue;
    }
    const states = await services.store.getChunkStates(docId);
    const broken = states.filter((s) => s.status !== "merged");
    if (broken.length === 0 && !unsummarized.has(docId)) {
      await services.store.setDocumentStatus(docId, "processed", null);
      continue;
    }
    const reasons = [...new Set(broken.map((s) => s.error ?? s.status))].slice(0, 3).join("; ");
    const error = broken.length
      ? `${broken.length} of ${states.length} chunks not fully merged: ${reasons}`
      : (unsummarized.get(docId) ?? "");
    await services.store.setDocumentStatus(docId, "failed", error);
    failed.push(docId);
  }
  return { failed };
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
