import { UnreadableSourceError } from "./source-types.js";

/** How a file of each binary format is described when its parser gives up on it. */
const UNREADABLE_FORMAT = {
  PDF: "not a readable .pdf file (corrupt or not a PDF)",
  DOCX: "not a readable .docx file (corrupt or not a Word document)",
} as const;

export type ParsedFormat = keyof typeof UNREADABLE_FORMAT;

const MAX_DETAIL_CHARS = 80;

/** The skip reason of a file its format's parser rejected: what it is not, and the parser's gist. */
export function unparsableReason(format: ParsedFormat, error: unknown): string {
  const detail = briefDetail(error);
  return detail ? `${UNREADABLE_FORMAT[format]}: ${detail}` : UNREADABLE_FORMAT[format];
}

/** The user-facing reason an input could not be read. */
export function skipReason(error: unknown): string {
  if (error instanceof UnreadableSourceError) return error.message;
  return `cannot read file: ${briefDetail(error)}`;
}

/**
 * A library's message cut to its first sentence, without links: parsers explain for their own
 * developers ("… is this a zip file ? If it is, see https://…"), which tells a user nothing.
 */
export function briefDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message
    .replace(/https?:\/\/\S+/g, "")
    .split(/\s[:?]\s|[.!?](?:\s|$)|\n/)[0]
    ?.trim();
  if (!first) return "";
  return first.length > MAX_DETAIL_CHARS ? `${first.slice(0, MAX_DETAIL_CHARS - 1).trimEnd()}…` : first;
}
