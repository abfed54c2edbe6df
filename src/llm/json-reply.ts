import { createRequire } from "node:module";

/**
 * What a model's JSON reply holds. `cutShort` says the JSON stopped before it was closed (open
 * brackets or an open string at the end), valid up to there, and repair had to close it: the value is whatever came
 * before the cut, so it must not count as a complete answer, whatever the finish reason said.
 */
export type JsonReply<T> = { ok: true; value: T; cutShort: boolean } | { ok: false; error: string };

/**
 * Reads the JSON answer of any stage (extraction, keywords, reports, global map/reduce). Survives
 * what models actually send: reasoning blocks, code fences, prose before or after the JSON, single
 * quotes and trailing commas, and JSON cut short (closed by jsonrepair, and flagged). `read` turns
 * the JSON into the stage's shape and throws, with the reason, when it is not of that shape; each
 * opening bracket outside JSON already read is tried in turn, since prose may hold brackets of its
 * own ("[1]", "{see below}").
 */
export function readJsonReply<T>(raw: string, read: (value: unknown) => T): JsonReply<T> {
  const body = stripReasoning(raw).trim();
  if (!body) return { ok: false, error: "The answer is empty." };
  const text = unfence(body);
  let error = "The answer contains no JSON object or array.";
  let readUpTo = 0;
  for (const start of openingBrackets(text)) {
    // A bracket inside JSON already read (of the wrong shape) opens a fragment of it, not an answer:
    // '{"entities": "none", "relationships": []}' must not pass as its inner "[]".
    if (start < readUpTo) continue;
    const candidate = jsonCandidate(text, start);
    // Unclosed JSON is a cut-short answer only when it is valid as far as it goes. Broken JSON
    // ('"type": oops ] garbage') is unreadable, whatever repair would make of it; and every later
    // bracket lies inside it, so reading one would pass a fragment of the broken answer as whole.
    if (!candidate.closed && !stopsCleanly(candidate.text)) return { ok: false, error: BROKEN_JSON };
    const value = parseOrRepair(candidate.text);
    if (value === undefined) {
      error = "The answer's JSON could not be read or repaired.";
      // Its inner brackets open fragments of it: '{“entities”：[…]，“relationships”：[]}' must not
      // pass as its trailing "[]", an empty extraction that would be cached as a good answer.
      readUpTo = start + candidate.text.length;
      continue;
    }
    try {
      return { ok: true, value: read(value), cutShort: !candidate.closed };
    } catch (shapeError) {
      error = shapeError instanceof Error ? shapeError.message : String(shapeError);
      readUpTo = start + candidate.text.length;
    }
  }
  return { ok: false, error };
}

/** True when the reply holds JSON of the stage's shape that was complete as sent. */
export function isCompleteJsonReply(raw: string, read: (value: unknown) => unknown): boolean {
  const reply = readJsonReply(raw, read);
  return reply.ok && !reply.cutShort;
}

/**
 * Drops the reasoning that models such as DeepSeek-R1 and Qwen3 put before the answer: closed
 * `<think>` blocks, an unclosed one (a reply cut short while still thinking has no answer), and
 * reasoning ended by a `</think>` alone, as sent when the chat template opened the block in the
 * prompt (local servers running those models without a reasoning parser).
 */
export function stripReasoning(raw: string): string {
  const text = raw.replace(/^\uFEFF/, "").replace(/<think>[\s\S]*?(<\/think>|$)/gi, "");
  const orphanClose = text.toLowerCase().lastIndexOf(THINK_CLOSE);
  return orphanClose < 0 ? text : text.slice(orphanClose + THINK_CLOSE.length);
}

const THINK_CLOSE = "</think>";

const MAX_OPENINGS_TRIED = 8;

function openingBrackets(text: string): number[] {
  const starts: number[] = [];
  for (let i = 0; i < text.length && starts.length < MAX_OPENINGS_TRIED; i++) {
    if (text[i] === "{" || text[i] === "[") starts.push(i);
  }
  return starts;
}

/** The content of the first ``` fence, or of an unterminated one (a truncated answer). */
function unfence(body: string): string {
  const fence = /```[a-zA-Z]*[^\S\n]*\n?([\s\S]*?)(```|$)/.exec(body);
  return fence?.[1]?.trim() ? fence[1] : body;
}

/**
 * From an opening bracket to the end of that value, found by bracket matching outside strings, so
 * prose after the JSON is cut off. An unbalanced value runs to the end of the text: not closed.
 */
function jsonCandidate(body: string, start: number): { text: string; closed: boolean } {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || (ch === "'" && isOpeningSingleQuote(body, i))) {
      quote = ch;
    } else if (ch === "{" || ch === "[") {
      depth++;
    } else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return { text: body.slice(start, i + 1), closed: true };
    }
  }
  return { text: body.slice(start), closed: false };
}

/** A single quote opens a string only where JSON expects a value or key, not in "don't". */
function isOpeningSingleQuote(body: string, at: number): boolean {
  const before = body.slice(0, at).trimEnd();
  return /[[{,:]$/.test(before);
}

const BROKEN_JSON = "The answer's JSON is broken: it is not valid JSON even before the point where it stops.";

/**
 * Whether unclosed JSON is a valid beginning of a JSON value, i.e. it was cut short rather than
 * broken. JSON.parse says where it gave up: at the end of the text (or "end of JSON input") for a
 * clean cut, earlier for a syntax error.
 */
function stopsCleanly(candidate: string): boolean {
  try {
    JSON.parse(candidate);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/end of JSON input/i.test(message)) return true;
    const at = /at position (\d+)/.exec(message);
    return at !== null && Number(at[1]) >= candidate.trimEnd().length;
  }
}

/** jsonrepair is loaded by the first reply that is not valid JSON as it stands: offline runs never need it. */
const loadJsonrepair = (): typeof import("jsonrepair") => createRequire(import.meta.url)("jsonrepair");

function parseOrRepair(candidate: string): unknown {
  try {
    return JSON.parse(candidate);
  } catch {
    // Full-width punctuation is made ASCII only when repair alone fails: it is rare, and slower.
    return (
      repaired(candidate) ??
      (FULL_WIDTH.test(candidate) ? repaired(withAsciiPunctuation(candidate)) : undefined)
    );
  }
}

function repaired(text: string): unknown {
  try {
    return JSON.parse(loadJsonrepair().jsonrepair(text));
  } catch {
    return undefined;
  }
}

/** Full-width colons, commas and curly quotes: small models write JSON with them after Chinese text. */
const FULL_WIDTH = /[：，“”]/;
const ASCII_OF: Record<string, string> = { "：": ":", "，": "," };

/**
 * The JSON with full-width punctuation outside strings made ASCII, and strings in curly quotes put
 * in straight ones; text inside strings is left as written ("北京，上海" keeps its comma).
 */
function withAsciiPunctuation(text: string): string {
  let out = "";
  let closer: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (closer === null) {
      if (ch === '"' || ch === "“" || ch === "”") {
        closer = ch === '"' ? '"' : "”";
        out += '"';
      } else out += ASCII_OF[ch] ?? ch;
    } else if (ch === "\\") {
      out += ch + (text[i + 1] ?? "");
      i++;
    } else if (ch === closer) {
      closer = null;
      out += '"';
    } else out += ch === '"' ? '\\"' : ch;
  }
  return out;
}
