import { readJsonReply } from "../llm/json-reply.js";
import type { Extraction } from "../types.js";
import { capExtraction, isRecord, normaliseExtraction } from "./schema.js";

/** `cutShort`: the JSON stopped before it was closed, so the extraction holds only what came before. */
export type ParseResult =
  | { ok: true; extraction: Extraction; cutShort: boolean }
  | { ok: false; error: string };

/**
 * Answers read by isCompleteExtraction, kept for the parseExtraction that reads the same answer
 * next (the cache checks an answer before the extractor reads it): each reply is parsed once on
 * the way from its arrival to the next request. Taken out when used, so no two callers share one.
 */
const checkedAnswers = new Map<string, ParseResult>();
const CHECKED_ANSWERS_KEPT = 64;

/**
 * Reads a model's extraction answer (see readJsonReply for the damage it survives): a wrapper
 * object, or a bare array of records, is accepted too.
 */
export function parseExtraction(raw: string): ParseResult {
  const checked = checkedAnswers.get(raw);
  if (checked) {
    checkedAnswers.delete(raw);
    return checked;
  }
  return readExtraction(raw);
}

function readExtraction(raw: string): ParseResult {
  const reply = readJsonReply(raw, extractionOf);
  return reply.ok ? { ok: true, extraction: reply.value, cutShort: reply.cutShort } : reply;
}

/** An extraction answer that was complete as sent: the only kind worth caching. */
export function isCompleteExtraction(raw: string): boolean {
  const parsed = readExtraction(raw);
  if (checkedAnswers.size >= CHECKED_ANSWERS_KEPT) checkedAnswers.clear();
  checkedAnswers.set(raw, parsed);
  return parsed.ok && !parsed.cutShort;
}

function extractionOf(value: unknown): Extraction {
  const extraction = toExtraction(value);
  if (!extraction) {
    throw new Error(
      'The JSON is not of the asked shape: "entities" and "relationships" must be lists of objects ' +
        "(empty lists when there are none).",
    );
  }
  return capExtraction(extraction);
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
