import { z } from "zod";
import type { JsonSchemaSpec } from "../llm/chat-model.js";
import type { ExtractedEntity, ExtractedRelationship, Extraction } from "../types.js";

/** LightRAG caps one answer at 100 records; a runaway answer beyond that is mostly repetition. */
export const MAX_ENTITIES_PER_ANSWER = 100;
export const MAX_RELATIONSHIPS_PER_ANSWER = 100;

export const DEFAULT_STRENGTH = 5;
export const UNKNOWN_ENTITY_TYPE = "unknown";

/** The exact shape we ask the model for (sent as response_format json_schema). */
const StrictExtraction = z.strictObject({
  entities: z.array(
    z.strictObject({
      name: z.string(),
      type: z.string(),
      description: z.string(),
    }),
  ),
  relationships: z.array(
    z.strictObject({
      source: z.string(),
      target: z.string(),
      description: z.string(),
      keywords: z.array(z.string()),
      strength: z.number().int().min(1).max(10),
    }),
  ),
});

function toJsonSchema(): Record<string, unknown> {
  // Some OpenAI-compatible servers reject the "$schema" meta key inside response_format.
  const { $schema: _ignored, ...schema } = z.toJSONSchema(StrictExtraction) as Record<string, unknown>;
  return schema;
}

export const EXTRACTION_JSON_SCHEMA: JsonSchemaSpec = {
  name: "knowledge_graph_extraction",
  schema: toJsonSchema(),
};

// ---- Lenient reading: models drift from the schema in small, predictable ways. ----

const text = z.preprocess((value) => (typeof value === "number" ? String(value) : value), z.string());
const optionalText = z.preprocess(
  (value) => (value === null || value === undefined ? "" : typeof value === "number" ? String(value) : value),
  z.string(),
);

/** "a, b; c" → ["a","b","c"]; a list keeps its string items; anything else → []. */
const keywordList = z.preprocess((value) => {
  const items = typeof value === "string" ? value.split(/[,;，；、]/) : Array.isArray(value) ? value : [];
  return items.filter((item): item is string => typeof item === "string").map((item) => item.trim());
}, z.array(z.string()));

/** A number or numeric string, rounded and clamped to 1-10; missing or unreadable → the default. */
const strength = z.preprocess((value) => {
  const n =
    typeof value === "number" ? value : typeof value === "string" ? Number.parseFloat(value) : Number.NaN;
  return Number.isFinite(n) ? Math.min(10, Math.max(1, Math.round(n))) : DEFAULT_STRENGTH;
}, z.number());

/** Field names other prompt styles (LightRAG, GraphRAG) use for the same thing. */
function pick(record: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (record[name] !== undefined) return record[name];
  return undefined;
}

const LenientEntity = z.preprocess(
  (value) => {
    if (!isRecord(value)) return value;
    return {
      name: pick(value, "name", "entity_name", "entity"),
      type: pick(value, "type", "entity_type"),
      description: pick(value, "description", "entity_description"),
    };
  },
  z.object({ name: text, type: optionalText, description: optionalText }),
);

const LenientRelationship = z.preprocess(
  (value) => {
    if (!isRecord(value)) return value;
    return {
      source: pick(value, "source", "src_id", "source_entity", "from"),
      target: pick(value, "target", "tgt_id", "target_entity", "to"),
      description: pick(value, "description", "relationship_description"),
      keywords: pick(value, "keywords", "relationship_keywords"),
      strength: pick(value, "strength", "weight", "relationship_strength"),
    };
  },
  z.object({ source: text, target: text, description: optionalText, keywords: keywordList, strength }),
);

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Missing or null (none), or a list holding records (or nothing). Anything else, such as
 * "entities": "none" or a list of bare strings, is an answer of another shape: taking it as an
 * empty list would record a chunk as having nothing in it, and cache that as a good answer.
 */
function isRecordListOrNone(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  return Array.isArray(value) && (value.length === 0 || value.some(isRecord));
}

/**
 * Validates one parsed answer item by item: a malformed record is dropped, not the whole answer.
 * Returns null when the value has neither an entity nor a relationship list, or when either is
 * something other than a list of records.
 */
export function normaliseExtraction(value: Record<string, unknown>): Extraction | null {
  const rawEntities = pick(value, "entities", "nodes");
  const rawRelationships = pick(value, "relationships", "relations", "edges");
  if (rawEntities === undefined && rawRelationships === undefined) return null;
  if (!isRecordListOrNone(rawEntities) || !isRecordListOrNone(rawRelationships)) return null;
  const entities: ExtractedEntity[] = [];
  for (const item of listOf(rawEntities)) {
    const parsed = LenientEntity.safeParse(item);
    if (!parsed.success) continue;
    const entity = cleanEntity(parsed.data);
    if (entity) entities.push(entity);
  }
  const relationships: ExtractedRelationship[] = [];
  for (const item of listOf(rawRelationships)) {
    const parsed = LenientRelationship.safeParse(item);
    if (!parsed.success) continue;
    const relationship = cleanRelationship(parsed.data);
    if (relationship) relationships.push(relationship);
  }
  return { entities, relationships };
}

export function capExtraction(extraction: Extraction): Extraction {
  return {
    entities: extraction.entities.slice(0, MAX_ENTITIES_PER_ANSWER),
    relationships: extraction.relationships.slice(0, MAX_RELATIONSHIPS_PER_ANSWER),
  };
}

function squash(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/**
 * Words small models put where a name goes when they copy the prompt's format instead of filling
 * it: field names and placeholders, never the name of anything in a passage.
 */
const PLACEHOLDER_NAMES = new Set([
  "entity",
  "entity name",
  "entity type",
  "relationship",
  "source",
  "source entity",
  "target",
  "target entity",
  "name",
  "type",
  "description",
  "keywords",
  "none",
  "null",
  "n/a",
]);

/** Quotes around a whole name, as tuple-format habits leave them: '"Lumen"' is Lumen. */
function unquote(name: string): string {
  return name.replace(/^["'“”‘’「『](.*)["'“”‘’」』]$/u, "$1").trim();
}

/**
 * A name that is a piece of an extraction format rather than a name: no letter or digit ("<|>",
 * "##"), a tuple delimiter inside it ("Mara Okafor<|>person", "<|COMPLETE|>"), or a placeholder.
 */
function isFormatFragment(name: string): boolean {
  if (!/[\p{L}\p{N}]/u.test(name)) return true;
  if (name.includes("<|") || name.includes("|>")) return true;
  return PLACEHOLDER_NAMES.has(name.toLowerCase().replace(/_/g, " "));
}

/** The cleaned name, or "" when there is none worth keeping. */
function cleanName(raw: string): string {
  const name = unquote(squash(raw));
  return isFormatFragment(name) ? "" : name;
}

function cleanEntity(entity: ExtractedEntity): ExtractedEntity | null {
  const name = cleanName(entity.name);
  if (!name) return null;
  return {
    name,
    type: squash(entity.type).toLowerCase() || UNKNOWN_ENTITY_TYPE,
    description: squash(entity.description),
  };
}

function cleanRelationship(relationship: ExtractedRelationship): ExtractedRelationship | null {
  const source = cleanName(relationship.source);
  const target = cleanName(relationship.target);
  if (!source || !target) return null;
  const keywords = [...new Set(relationship.keywords.map(squash).filter(Boolean))];
  return { ...relationship, source, target, description: squash(relationship.description), keywords };
}
