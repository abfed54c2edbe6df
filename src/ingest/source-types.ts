import type { SourceDocument } from "../types.js";

/** The formats kgrag reads; recorded as `metadata.format` on every document. */
export type SourceFormat = "text" | "markdown" | "html" | "pdf" | "docx" | "jsonl";

/** A file or line that was not loaded, and why (shown to the user, never silently dropped). */
export interface SkippedSource {
  path: string;
  reason: string;
  /** The document this input would be: a file that is empty or cannot be read, an empty line. */
  docId?: string;
  /**
   * Set on a .jsonl line that could not be read (bad UTF-8, JSON or shape): it may be a stored
   * document, so none of its file's documents is taken for gone. Empty and duplicate lines are not.
   */
  unreadable?: true;
  /** With `unreadable`: the 1-based line of the .jsonl file (`path` is then "file:line"). */
  line?: number;
}

/** What loading yields, one item at a time, so large inputs never have to sit in memory whole. */
export type LoadEvent =
  | { kind: "document"; document: SourceDocument }
  | ({ kind: "skipped" } & SkippedSource);

/** A thrown error whose message is the user-facing skip reason. */
export class UnreadableSourceError extends Error {}
