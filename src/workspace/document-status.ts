import type { DocumentRecord } from "../types.js";

/** A document's status as the API, the web app and `kgrag status` name it. */
export const DOCUMENT_STATUSES = ["pending", "indexed", "failed", "partial"] as const;
export type ShownDocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/**
 * The store's status as people read it: processed is "indexed", processing "pending". A failed
 * document that kept some merged chunks (some chunks failed, or a description summary did) is
 * "partial": it answers questions already.
 */
export function shownDocumentStatus(
  doc: Pick<DocumentRecord, "status" | "error" | "chunkCount">,
): ShownDocumentStatus {
  if (doc.status === "processed") return "indexed";
  if (doc.status !== "failed") return "pending";
  const chunks = /^(\d+) of (\d+) chunks not fully merged/.exec(doc.error ?? "");
  if (chunks) return Number(chunks[1]) < Number(chunks[2]) ? "partial" : "failed";
  return doc.chunkCount > 0 && /description summary/.test(doc.error ?? "") ? "partial" : "failed";
}
