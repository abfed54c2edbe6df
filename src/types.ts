/**
 * Domain records shared by every part of kgrag. Storage adapters persist exactly these shapes;
 * pipeline steps and query modes read and write them. Keep this file free of behaviour.
 */

export type Metadata = Record<string, string | number | boolean>;

export type DocumentStatus = "pending" | "processing" | "processed" | "failed";

export interface DocumentRecord {
  id: string;
  title: string;
  /** Absolute path of the source file, when the document came from one. */
  path: string | null;
  contentHash: string;
  status: DocumentStatus;
  error: string | null;
  metadata: Metadata;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A document's text as loaded, before chunking. */
export interface SourceDocument {
  id: string;
  title: string;
  path: string | null;
  text: string;
  metadata: Metadata;
}

/** A document as callers hand it to `Kgrag.index`: `path` (default null) and `metadata` ({}) may be left out. */
export interface SourceDocumentInput {
  id: string;
  title: string;
  text: string;
  path?: string | null;
  metadata?: Metadata;
}

export interface ChunkRecord {
  /** Stable id derived from the document id and the chunk's content. */
  id: string;
  docId: string;
  /** Position of the chunk in its document, from 0. */
  index: number;
  text: string;
  tokens: number;
  /** Character offsets [start, end) of the chunk in the document text. */
  start: number;
  end: number;
}

/** "partial": merged from a cut-short answer; extracted again on the next run. */
export type ChunkStatus = "pending" | "merged" | "partial" | "failed";

/** Why a merged chunk is only partial, and the cut-short answer, kept for inspection. */
export interface ChunkPartial {
  error: string;
  rawOutput: string;
}

export interface ChunkState {
  chunkId: string;
  docId: string;
  status: ChunkStatus;
  error: string | null;
  /** Raw model output kept for inspection when parsing failed or the answer was cut short. */
  rawOutput: string | null;
}

/** What an extractor returns for one chunk (the LLM JSON shape, validated). */
export interface ExtractedEntity {
  name: string;
  type: string;
  description: string;
}

export interface ExtractedRelationship {
  source: string;
  target: string;
  description: string;
  keywords: string[];
  /** 1-10, how strongly the two are related. */
  strength: number;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relationships: ExtractedRelationship[];
}

/**
 * One chunk's contribution to one entity. Entities are folded from their mentions, so deleting a
 * chunk and rebuilding from the remaining mentions yields the same graph as a clean run.
 */
export interface EntityMention {
  entityKey: string;
  chunkId: string;
  /** Surface form as written in the chunk. */
  name: string;
  type: string;
  description: string;
}

export interface RelationshipMention {
  /** Canonical pair key, see relationshipKey(). */
  relationshipKey: string;
  sourceKey: string;
  targetKey: string;
  chunkId: string;
  description: string;
  keywords: string[];
  strength: number;
}

export interface EntityRecord {
  /** Normalised name: case-, width- and whitespace-insensitive. */
  key: string;
  /** Most frequent surface form. */
  name: string;
  type: string;
  /** Fragments joined with <SEP>, or their summary once they grew past the thresholds. */
  description: string;
  /** De-duplicated description fragments in a deterministic order. */
  fragments: string[];
  sourceChunkIds: string[];
  /** Hash of the fragments; a summary is valid only for the hash it was made from. */
  fragmentsHash: string;
  /** True while the fragments passed a summary threshold and `description` is not yet their summary. */
  needsSummary: boolean;
  /** Other names the entity was extracted under and merged by resolution or by hand (absent when none). */
  aliases?: string[];
}

export interface RelationshipRecord {
  key: string;
  /** Canonical order: sourceKey <= targetKey. */
  sourceKey: string;
  targetKey: string;
  description: string;
  fragments: string[];
  keywords: string[];
  /** Sum of the strengths of all mentions. */
  weight: number;
  sourceChunkIds: string[];
  fragmentsHash: string;
  needsSummary: boolean;
}

export type HistoryAction = "create" | "update" | "delete";

export interface HistoryEntry {
  /** "document": a direct edit of a document's metadata (key: the document id). */
  kind: "entity" | "relationship" | "document";
  key: string;
  action: HistoryAction;
  /** For a document: the edited keys' values before, as JSON (null for a key it did not have). */
  oldDescription: string | null;
  /** For a document: the edited keys' values after, as JSON (null for a key removed). */
  newDescription: string | null;
  /** Why it changed, e.g. "merge chunk <id>", "summarize", "delete document <id>", "metadata set a; removed b by alice". */
  cause: string;
  at: string;
}

/** Everything one merge or rebuild changes in the graph, applied atomically by the store. */
export interface GraphChanges {
  upsertEntities: EntityRecord[];
  upsertRelationships: RelationshipRecord[];
  deleteEntityKeys: string[];
  deleteRelationshipKeys: string[];
  history: HistoryEntry[];
}

export interface CommunityFinding {
  summary: string;
  explanation: string;
}

export interface CommunityReport {
  title: string;
  summary: string;
  rating: number;
  ratingExplanation: string;
  findings: CommunityFinding[];
  /** The report rendered as markdown; this is what gets embedded and shown. */
  markdown: string;
  /** "llm" or "extractive": offline reports are labelled as what they are. */
  method: "llm" | "extractive";
}

export interface CommunityRecord {
  /**
   * `c<level>-<hash of members>` when first seen, then kept across re-clusterings while the
   * membership mostly stays (community/id-continuity.ts); unique in the workspace.
   */
  id: string;
  level: number;
  parentId: string | null;
  childIds: string[];
  entityKeys: string[];
  /** Hash of membership plus member descriptions; a report is reused while it matches. */
  contentHash: string;
  report: CommunityReport | null;
  /** contentHash the report was written for. */
  reportHash: string | null;
}

export type VectorNamespace = "chunks" | "entities" | "relationships" | "communities";
export const VECTOR_NAMESPACES: readonly VectorNamespace[] = [
  "chunks",
  "entities",
  "relationships",
  "communities",
];

export interface VectorItem {
  id: string;
  vector: number[];
  /** Hash of the text that was embedded, so unchanged items are not embedded again. */
  textHash: string;
}

export interface ScoredId {
  id: string;
  score: number;
}

export interface LlmCacheEntry {
  stage: string;
  model: string;
  promptHash: string;
  response: string;
  promptTokens: number;
  completionTokens: number;
}

export interface GraphCounts {
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  communities: number;
  failedDocuments: number;
  failedChunks: number;
  /** Chunks merged from an answer cut short, asked again by the next run (their document failed). */
  partialChunks: number;
}

/** Restricts retrieval to some documents; applied before ranking. */
export interface Scope {
  docIds?: string[];
  metadata?: Record<string, string>;
}
