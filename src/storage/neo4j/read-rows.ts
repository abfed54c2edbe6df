import { z } from "zod";
import type {
  ChunkRecord,
  ChunkState,
  CommunityRecord,
  DocumentRecord,
  EntityMention,
  EntityRecord,
  HistoryEntry,
  LlmCacheEntry,
  Metadata,
  RelationshipMention,
  RelationshipRecord,
} from "../../types.js";
import type { DescribedEdge } from "../graph-store.js";
import type { PlainRecord, PlainValue } from "./record-mapping.js";

/**
 * Statements return maps shaped like kgrag's records; these schemas check them on the way out, so
 * a missing or mistyped property is an error naming the record, not a silent undefined.
 */

const text = z.string();
const nullableText = z.string().nullable();
const texts = z
  .array(z.string())
  .nullable()
  .transform((v) => v ?? []);
const count = z.number();
const flag = z
  .boolean()
  .nullable()
  .transform((v) => v === true);

const DocumentRow = z.object({
  id: text,
  title: text,
  path: nullableText,
  contentHash: text,
  status: z.enum(["pending", "processing", "processed", "failed"]),
  error: nullableText,
  metadataJson: nullableText,
  chunkCount: count,
  createdAt: text,
  updatedAt: text,
});

const ChunkRow = z.object({
  id: text,
  docId: text,
  index: count,
  text,
  tokens: count,
  start: count,
  end: count,
});

const ChunkStateRow = z.object({
  chunkId: text,
  docId: text,
  status: z.enum(["pending", "merged", "partial", "failed"]),
  error: nullableText,
  rawOutput: nullableText,
});

const EntityRow = z
  .object({
    key: text,
    name: text,
    type: text,
    description: text,
    fragments: texts,
    sourceChunkIds: texts,
    fragmentsHash: text,
    needsSummary: flag,
    // Absent on nodes written before entity resolution, and when the entity has no other name.
    aliases: texts.nullish(),
  })
  .transform(({ aliases, ...entity }) => (aliases && aliases.length > 0 ? { ...entity, aliases } : entity));

const RelationshipRow = z.object({
  key: text,
  sourceKey: text,
  targetKey: text,
  description: text,
  fragments: texts,
  keywords: texts,
  weight: count,
  sourceChunkIds: texts,
  fragmentsHash: text,
  needsSummary: flag,
});

/** A relationship as relationships-among returns it (see DescribedEdge). */
const DescribedEdgeRow = RelationshipRow.pick({
  key: true,
  sourceKey: true,
  targetKey: true,
  description: true,
  weight: true,
});

const EntityMentionRow = z.object({
  entityKey: text,
  chunkId: text,
  name: text,
  type: text,
  description: text,
});

const RelationshipMentionRow = z.object({
  relationshipKey: text,
  sourceKey: text,
  targetKey: text,
  chunkId: text,
  description: text,
  keywords: texts,
  strength: count,
});

const CommunityRow = z.object({
  id: text,
  level: count,
  parentId: nullableText,
  childIds: texts,
  entityKeys: texts,
  contentHash: text,
  reportJson: nullableText,
  reportHash: nullableText,
});

const HistoryRow = z.object({
  kind: z.enum(["entity", "relationship", "document"]),
  key: text,
  action: z.enum(["create", "update", "delete"]),
  oldDescription: nullableText,
  newDescription: nullableText,
  cause: text,
  at: text,
});

const LlmCacheRow = z.object({
  stage: text,
  model: text,
  promptHash: text,
  response: text,
  promptTokens: count,
  completionTokens: count,
});

const ScoredRow = z.object({ id: text, score: count });

function parse<T extends z.ZodType>(schema: T, value: PlainValue | undefined, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Error(`Neo4j returned a malformed ${what}: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/** The values of one column of the records, each parsed as `what`. */
function column<T extends z.ZodType>(schema: T, key: string, what: string) {
  return (records: PlainRecord[]): z.infer<T>[] => records.map((r) => parse(schema, r[key], what));
}

export const asDocuments = (records: PlainRecord[]): DocumentRecord[] =>
  column(
    DocumentRow,
    "document",
    "document",
  )(records).map(({ metadataJson, ...doc }) => ({
    ...doc,
    metadata: (metadataJson ? JSON.parse(metadataJson) : {}) as Metadata,
  }));

export const asChunks = (records: PlainRecord[]): ChunkRecord[] =>
  column(ChunkRow, "chunk", "chunk")(records);

export const asChunkStates = (records: PlainRecord[]): ChunkState[] =>
  column(ChunkStateRow, "state", "chunk state")(records);

export const asEntities = (records: PlainRecord[]): EntityRecord[] =>
  column(EntityRow, "entity", "entity")(records);

export const asRelationships = (records: PlainRecord[]): RelationshipRecord[] =>
  column(RelationshipRow, "relationship", "relationship")(records);

export const asDescribedEdges = (records: PlainRecord[]): DescribedEdge[] =>
  column(DescribedEdgeRow, "relationship", "relationship")(records);

export const asEntityMentions = (records: PlainRecord[]): EntityMention[] =>
  column(EntityMentionRow, "mention", "entity mention")(records);

export const asRelationshipMentions = (records: PlainRecord[]): RelationshipMention[] =>
  column(RelationshipMentionRow, "mention", "relationship mention")(records);

/**
 * The entries of history-list's rows: a page of entries as JSON, or (written by an older kgrag) one
 * entry as properties. With `key`, only that key's entries (a page found by it holds others too).
 */
export function asHistory(records: PlainRecord[], key?: string): HistoryEntry[] {
  return records.flatMap((record) => {
    if (record.entries === null || record.entries === undefined) {
      return [parse(HistoryRow, record.entry, "history entry")];
    }
    const page = parse(
      z.array(HistoryRow),
      JSON.parse(parse(text, record.entries, "history page")),
      "history page",
    );
    return key === undefined ? page : page.filter((entry) => entry.key === key);
  });
}

export const asLlmCacheEntries = (records: PlainRecord[]): LlmCacheEntry[] =>
  column(LlmCacheRow, "entry", "LLM cache entry")(records);

export const asCommunities = (records: PlainRecord[]): CommunityRecord[] =>
  column(
    CommunityRow,
    "community",
    "community",
  )(records).map(({ reportJson, ...community }) => ({
    ...community,
    report: reportJson ? (JSON.parse(reportJson) as CommunityRecord["report"]) : null,
  }));

/** Rows of {id, score} returned as columns of a record. */
export function asScored(records: PlainRecord[]): { id: string; score: number }[] {
  return records.map((r) => parse(ScoredRow, { id: r.id ?? null, score: r.score ?? null }, "search hit"));
}

/** A list of {id, score} maps held in one column. */
export function asScoredList(value: PlainValue | undefined): { id: string; score: number }[] {
  return parse(z.array(ScoredRow), value, "search hit list");
}

export function asStrings(value: PlainValue | undefined, what: string): string[] {
  return parse(z.array(z.string()), value, what);
}

export function asNumber(value: PlainValue | undefined, what: string): number {
  return parse(z.number(), value, what);
}
