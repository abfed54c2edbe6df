import { relationshipKey } from "../../merge/keys.js";
import type {
  ChunkRecord,
  CommunityRecord,
  DocumentRecord,
  EntityMention,
  EntityRecord,
  HistoryEntry,
  LlmCacheEntry,
  RelationshipMention,
  RelationshipRecord,
} from "../../types.js";
import { int } from "./connection.js";
import { relationshipSearchTerms } from "./search-terms.js";

/**
 * Records as statement parameters. Integers are wrapped so they are stored as INTEGER (a plain JS
 * number would become a FLOAT); maps Neo4j cannot hold as properties are kept as JSON text.
 */

export function documentRow(doc: DocumentRecord) {
  return {
    id: doc.id,
    title: doc.title,
    path: doc.path,
    contentHash: doc.contentHash,
    status: doc.status,
    error: doc.error,
    metadataJson: JSON.stringify(doc.metadata),
    chunkCount: int(doc.chunkCount),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function chunkRow(chunk: ChunkRecord) {
  return {
    id: chunk.id,
    index: int(chunk.index),
    text: chunk.text,
    tokens: int(chunk.tokens),
    start: int(chunk.start),
    end: int(chunk.end),
  };
}

export function entityRow(entity: EntityRecord) {
  if (entity.key === "") throw new Error(`Entity "${entity.name}" has an empty key.`);
  return {
    key: entity.key,
    name: entity.name,
    type: entity.type,
    description: entity.description,
    fragments: entity.fragments,
    sourceChunkIds: entity.sourceChunkIds,
    fragmentsHash: entity.fragmentsHash,
    needsSummary: entity.needsSummary,
    aliases: entity.aliases ?? [],
  };
}

/**
 * The store keeps "one edge per unordered pair": only canonical records are saved. searchTerms is
 * what the relationship full-text index reads (see search-terms.ts).
 */
export function relationshipRow(rel: RelationshipRecord) {
  if (rel.sourceKey > rel.targetKey || rel.key !== relationshipKey(rel.sourceKey, rel.targetKey)) {
    throw new Error(
      `Relationship ${JSON.stringify(rel.key)} is not canonical: its key must be relationshipKey(sourceKey, ` +
        `targetKey) with sourceKey <= targetKey (got ${JSON.stringify(rel.sourceKey)}, ${JSON.stringify(rel.targetKey)}).`,
    );
  }
  return {
    key: rel.key,
    sourceKey: rel.sourceKey,
    targetKey: rel.targetKey,
    description: rel.description,
    fragments: rel.fragments,
    keywords: rel.keywords,
    weight: rel.weight,
    sourceChunkIds: rel.sourceChunkIds,
    fragmentsHash: rel.fragmentsHash,
    needsSummary: rel.needsSummary,
    searchTerms: relationshipSearchTerms(rel),
  };
}

export function entityMentionRows(mentions: EntityMention[]) {
  return mentions.map((m, ord) => ({
    chunkId: m.chunkId,
    entityKey: m.entityKey,
    name: m.name,
    type: m.type,
    description: m.description,
    ord: int(ord),
  }));
}

export function relationshipMentionRows(mentions: RelationshipMention[]) {
  return mentions.map((m, ord) => ({
    chunkId: m.chunkId,
    relationshipKey: m.relationshipKey,
    sourceKey: m.sourceKey,
    targetKey: m.targetKey,
    description: m.description,
    keywords: m.keywords,
    strength: m.strength,
    ord: int(ord),
  }));
}

/**
 * History entries as pages of `pageSize` (history-append.cypher): each page numbered by its first
 * entry, the entries after it following in order.
 */
export function historyRows(entries: HistoryEntry[], firstSeq: number, pageSize: number) {
  const rows = [];
  for (let start = 0; start < entries.length; start += pageSize) {
    const page = entries.slice(start, start + pageSize).map((e) => ({
      kind: e.kind,
      key: e.key,
      action: e.action,
      oldDescription: e.oldDescription,
      newDescription: e.newDescription,
      cause: e.cause,
      at: e.at,
    }));
    rows.push({
      seq: int(firstSeq + start),
      count: int(page.length),
      keys: [...new Set(page.map((e) => e.key))],
      entriesJson: JSON.stringify(page),
    });
  }
  return rows;
}

export function communityRow(community: CommunityRecord, ordinal: number) {
  return {
    id: community.id,
    ordinal: int(ordinal),
    level: int(community.level),
    parentId: community.parentId,
    childIds: community.childIds,
    entityKeys: community.entityKeys,
    contentHash: community.contentHash,
    reportHash: community.reportHash,
    ...reportProperties(community.report),
  };
}

/** The report whole (as JSON) plus the parts worth reading in the Neo4j Browser. */
export function reportProperties(report: CommunityRecord["report"]) {
  return {
    reportJson: report === null ? null : JSON.stringify(report),
    title: report?.title ?? null,
    summary: report?.summary ?? null,
    rating: report?.rating ?? null,
    report: report?.markdown ?? null,
  };
}

export function llmCacheRow(entry: LlmCacheEntry) {
  return {
    ...entry,
    promptTokens: int(entry.promptTokens),
    completionTokens: int(entry.completionTokens),
  };
}
