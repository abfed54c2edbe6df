import type {
  ChunkRecord,
  ChunkState,
  CommunityRecord,
  DocumentRecord,
  EntityMention,
  EntityRecord,
  RelationshipMention,
  RelationshipRecord,
} from "../../types.js";
import type { GraphEntity, GraphRelationship } from "../graph-store.js";

/**
 * Row shapes as SELECTed by the tables' modules, and their mapping to domain records. Arrays and
 * objects are stored as JSON text; booleans as 0/1.
 */

export interface DocumentRow {
  id: string;
  title: string;
  path: string | null;
  content_hash: string;
  status: DocumentRecord["status"];
  error: string | null;
  metadata: string;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

export function toDocument(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    title: row.title,
    path: row.path,
    contentHash: row.content_hash,
    status: row.status,
    error: row.error,
    metadata: JSON.parse(row.metadata) as DocumentRecord["metadata"],
    chunkCount: row.chunk_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface ChunkRow {
  id: string;
  doc_id: string;
  idx: number;
  text: string;
  tokens: number;
  start_offset: number;
  end_offset: number;
}

export function toChunk(row: ChunkRow): ChunkRecord {
  return {
    id: row.id,
    docId: row.doc_id,
    index: row.idx,
    text: row.text,
    tokens: row.tokens,
    start: row.start_offset,
    end: row.end_offset,
  };
}

export interface ChunkStateRow {
  id: string;
  doc_id: string;
  status: ChunkState["status"];
  error: string | null;
  raw_output: string | null;
}

export function toChunkState(row: ChunkStateRow): ChunkState {
  return {
    chunkId: row.id,
    docId: row.doc_id,
    status: row.status,
    error: row.error,
    rawOutput: row.raw_output,
  };
}

export interface EntityMentionRow {
  entity_key: string;
  chunk_id: string;
  name: string;
  type: string;
  description: string;
}

export function toEntityMention(row: EntityMentionRow): EntityMention {
  return {
    entityKey: row.entity_key,
    chunkId: row.chunk_id,
    name: row.name,
    type: row.type,
    description: row.description,
  };
}

export interface RelationshipMentionRow {
  relationship_key: string;
  source_key: string;
  target_key: string;
  chunk_id: string;
  description: string;
  keywords: string;
  strength: number;
}

export function toRelationshipMention(row: RelationshipMentionRow): RelationshipMention {
  return {
    relationshipKey: row.relationship_key,
    sourceKey: row.source_key,
    targetKey: row.target_key,
    chunkId: row.chunk_id,
    description: row.description,
    keywords: JSON.parse(row.keywords) as string[],
    strength: row.strength,
  };
}

export interface EntityRow {
  key: string;
  name: string;
  type: string;
  description: string;
  fragments: string;
  source_chunk_ids: string;
  fragments_hash: string;
  needs_summary: number;
  aliases: string | null;
}

export function toEntity(row: EntityRow): EntityRecord {
  return {
    ...toGraphEntity(row),
    fragments: JSON.parse(row.fragments) as string[],
    sourceChunkIds: JSON.parse(row.source_chunk_ids) as string[],
    fragmentsHash: row.fragments_hash,
    needsSummary: row.needs_summary === 1,
  };
}

export type GraphEntityRow = Pick<EntityRow, "key" | "name" | "type" | "description" | "aliases">;

/** Like toEntity, for the lean columns. */
export function toGraphEntity(row: GraphEntityRow): GraphEntity {
  const aliases = row.aliases ? (JSON.parse(row.aliases) as string[]) : [];
  return {
    ...(aliases.length > 0 ? { aliases } : {}),
    key: row.key,
    name: row.name,
    type: row.type,
    description: row.description,
  };
}

export interface RelationshipRow {
  key: string;
  source_key: string;
  target_key: string;
  description: string;
  fragments: string;
  keywords: string;
  weight: number;
  source_chunk_ids: string;
  fragments_hash: string;
  needs_summary: number;
}

export function toRelationship(row: RelationshipRow): RelationshipRecord {
  return {
    key: row.key,
    sourceKey: row.source_key,
    targetKey: row.target_key,
    description: row.description,
    fragments: JSON.parse(row.fragments) as string[],
    keywords: JSON.parse(row.keywords) as string[],
    weight: row.weight,
    sourceChunkIds: JSON.parse(row.source_chunk_ids) as string[],
    fragmentsHash: row.fragments_hash,
    needsSummary: row.needs_summary === 1,
  };
}

export type GraphRelationshipRow = Pick<
  RelationshipRow,
  "key" | "source_key" | "target_key" | "description" | "keywords" | "weight"
>;

export function toGraphRelationship(row: GraphRelationshipRow): GraphRelationship {
  return {
    key: row.key,
    sourceKey: row.source_key,
    targetKey: row.target_key,
    description: row.description,
    keywords: JSON.parse(row.keywords) as string[],
    weight: row.weight,
  };
}

export interface CommunityRow {
  id: string;
  level: number;
  parent_id: string | null;
  child_ids: string;
  entity_keys: string;
  content_hash: string;
  report: string | null;
  report_hash: string | null;
}

export function toCommunity(row: CommunityRow): CommunityRecord {
  return {
    id: row.id,
    level: row.level,
    parentId: row.parent_id,
    childIds: JSON.parse(row.child_ids) as string[],
    entityKeys: JSON.parse(row.entity_keys) as string[],
    contentHash: row.content_hash,
    report: row.report === null ? null : (JSON.parse(row.report) as CommunityRecord["report"]),
    reportHash: row.report_hash,
  };
}
