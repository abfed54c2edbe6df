import type { SourceDocument } from "../types.js";
import type { SkippedSource } from "./source-types.js";

/**
 * An input with no text is skipped, not failed: indexing it again could never succeed, and a
 * failure would make every later run report an error for it.
 */
export const EMPTY_DOCUMENT_REASON = "empty document: no text to index";

export function hasText(text: string): boolean {
  return text.trim() !== "";
}

/** The skip entry for a document that was read but holds no text. */
export function emptySource(where: string, docId: string): SkippedSource {
  return { path: where, reason: EMPTY_DOCUMENT_REASON, docId };
}

export function isEmptySource(skip: SkippedSource): boolean {
  return skip.reason === EMPTY_DOCUMENT_REASON;
}

/** Splits documents with text from empty ones (reported by path, or by id when they have none). */
export function setAsideEmpty(sources: SourceDocument[]): {
  withText: SourceDocument[];
  empty: SkippedSource[];
} {
  const withText: SourceDocument[] = [];
  const empty: SkippedSource[] = [];
  for (const source of sources) {
    if (hasText(source.text)) withText.push(source);
    else empty.push(emptySource(source.path ?? `document ${source.id}`, source.id));
  }
  return { withText, empty };
}
