import type { HistoryEntry } from "../types.js";
import { DESCRIPTION_SEPARATOR } from "./keys.js";

/**
 * The fragments of a stored description: the text each source gave, kept apart with <SEP> until
 * a summary replaces them (see fold.ts). Each on one line (its own line breaks and runs of
 * spaces become one space), without empty ones.
 */
export function descriptionFragments(description: string): string[] {
  return description
    .split(DESCRIPTION_SEPARATOR)
    .map((fragment) => fragment.replace(/\s+/g, " ").trim())
    .filter((fragment) => fragment !== "");
}

/** What readableDescription changes: a separator, a line break, tab or run of spaces, outer space. */
const NEEDS_READING = new RegExp(`${DESCRIPTION_SEPARATOR}|\\s\\s|[^\\S ]|^\\s|\\s$`);

/**
 * A description as people read it (CLI, REST API, query results, GraphML/GEXF/JSON exports):
 * one fragment a line, never the stored <SEP>. A summarised description is one line.
 */
export function readableDescription(description: string): string {
  // Most descriptions (every summarised one) are read as stored: no splitting per query result.
  if (!NEEDS_READING.test(description)) return description;
  return descriptionFragments(description).join("\n");
}

/**
 * The stored form of a description a person wrote or edited as the API shows descriptions: each
 * non-empty line one fragment, so what was read with readableDescription comes back as it was.
 */
export function storedDescription(written: string): string {
  return written
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(DESCRIPTION_SEPARATOR);
}

/** A history entry with its descriptions readable, for the CLI and the API. */
export function readableHistoryEntry(entry: HistoryEntry): HistoryEntry {
  // A metadata edit's values are JSON, not descriptions: made "readable", they would not parse.
  if (entry.kind === "document") return entry;
  const readable = (text: string | null) => (text === null ? null : readableDescription(text));
  return {
    ...entry,
    oldDescription: readable(entry.oldDescription),
    newDescription: readable(entry.newDescription),
  };
}
