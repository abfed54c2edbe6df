import { jsonrepair } from "jsonrepair";
import type { Extraction } from "../types.js";
import { capExtraction, isRecord, normaliseExtraction } from "./schema.js";

export type ParseResult = { ok: true; extraction: Extraction } | { ok: false; error: string };

/**
 * Reads a model's extraction answer. Survives what models actually send: reasoning blocks, code
 * fences, prose before or after the JSON, truncated output (closed by jsonrepair), single quotes
 * and trailing commas, a wrapper object, or a bare array of records.
 */
export function parseExtraction(raw: string): ParseResult {
  const body = stripReasoning(raw).trim();
  if (!body) return { ok: false, error: "The answer is empty." };
  const text = unfence(body);
  let error = "The answer contains no JSON object or array.";
  // Prose before the JSON may hold brackets of its own ("[1]", "{see below}"): try each opening.
  for (const start of openingBrackets(text)) {
    const value = readJson(jsonCandidate(text, start));
    if (value === undefined) {
      error = "The answer's JSON could not be read or repaired.";
      continue;
    }
    const extraction = toExtraction(value);
    if (extraction) return { ok: true, extraction: capExtraction(extraction) };
    error = 'The JSON has no "entities" or "relationships" list.';
  }
  return { ok: false, error };
}

const MAX_OPENINGS_TRIED = 8;

function openingBrackets(text: string): number[] {
  const starts: number[] = [];
  for (let i = 0; i < text.length && starts.length < MAX_OPENINGS_TRIED; i++) {
    if (text[i] === "{" || text[i] === "[") starts.push(i);
  }
  return starts;
}

/** Reasoning models (DeepSeek-R1, Qwen3) put their thinking before the answer. */
function stripReasoning(raw: string): string {
  return raw.replace(/^\uFEFF/, "").replace(/<think>[\s\S]*?(<\/think>|$)/gi, "");
}

/** The content of the first ``` fence, or of an unterminated one (a truncated answer). */
function unfence(body: string): string {
  const fence = /```[a-zA-Z]*[^\S\n]*\n?([\s\S]*?)(```|$)/.exec(body);
  return fence?.[1]?.trim() ? fence[1] : body;
}

/**
 * From an opening bracket to the end of that value, found by bracket matching outside strings, so
 * prose after the JSON is cut off. An unbalanced (truncated) value runs to the end of the text.
 */
function jsonCandidate(body: string, start: number): string {
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
      if (depth === 0) return body.slice(start, i + 1);
    }
  }
  return body.slice(start);
}

/** A single quote opens a string only where JSON expects a value or key, not in "don't". */
function isOpeningSingleQuote(body: string, at: number): boolean {
  const before = body.slice(0, at).trimEnd();
  return /[[{,:]$/.test(before);
}

function readJson(candidate: string): unknown {
  try {
    return JSON.parse(candidate);
  } catch {
    try {
      return JSON.parse(jsonrepair(candidate));
    } catch {
      return undefined;
    }
  }
}

function toExtraction(value: unknown): Extraction | null {
  if (Array.isArray(value)) return fromRecordList(value);
  if (!isRecord(value)) return null;
  const direct = normaliseExtraction(value);
  if (direct) return direct;
  // A wrapper such as {"result": {...}} or {"data": {...}}: look one level down.
  for (const inner of Object.values(value)) {
    if (isRecord(inner)) {
      const nested = normaliseExtraction(inner);
      if (nested) return nested;
    }
  }
  return null;
}

/**
 * A bare array: either of extraction objects (concatenated) or of mixed records, where those with
 * a source and a target are relationships and the rest entities.
 */
function fromRecordList(items: unknown[]): Extraction | null {
  const records = items.filter(isRecord);
  if (records.length === 0) return items.length === 0 ? { entities: [], relationships: [] } : null;
  const nested = records.map(normaliseExtraction).filter((e): e is Extraction => e !== null);
  if (nested.length > 0) {
    return {
      entities: nested.flatMap((e) => e.entities),
      relationships: nested.flatMap((e) => e.relationships),
    };
  }
  const isRelationship = (r: Record<string, unknown>) =>
    ("source" in r || "src_id" in r) && ("target" in r || "tgt_id" in r);
  return normaliseExtraction({
    entities: records.filter((r) => !isRelationship(r)),
    relationships: records.filter(isRelationship),
  });
}
