import type { ClusterGraph } from "../community/cluster.js";
import type {
  ChunkPartial,
  ChunkRecord,
  ChunkState,
  CommunityRecord,
  DocumentRecord,
  DocumentStatus,
  EntityMention,
  EntityRecord,
  GraphChanges,
  GraphCounts,
  HistoryEntry,
  LlmCacheEntry,
  RelationshipMention,
  RelationshipRecord,
  Scope,
  ScoredId,
  VectorItem,
  VectorNamespace,
} from "../types.js";

/** An entity as embedding and community work read it: no fragments, no provenance. */
export type GraphEntity = Pick<EntityRecord, "key" | "name" | "type" | "description" | "aliases">;
/** An entity as a graph picture labels it: no description, fragments or provenance. */
export type EntityLabel = Pick<EntityRecord, "key" | "name" | "type">;
/** A relationship as embedding and community work read it: no fragments, no provenance. */
export type GraphRelationship = Pick<
  RelationshipRecord,
  "key" | "sourceKey" | "targetKey" | "description" | "keywords" | "weight"
>;

/** A relationship as a picture of the graph draws it: its endpoints, weight and description. */
export type DescribedEdge = Pick<
  RelationshipRecord,
  "key" | "sourceKey" | "targetKey" | "description" | "weight"
>;

/** The whole graph in key order, in the lean form the steps after merging need. */
/** A relationship as a graph walk sees it: its endpoints and weight, nothing it says. */
export type GraphEdge = Readonly<Pick<RelationshipRecord, "key" | "sourceKey" | "targetKey" | "weight">> & {
  /**
   * Small numbers for the relationship and its endpoints, where the store hands them out (optional):
   * the same key always gets the same number from one store, so a walk can dedupe and number its
   * edges in arrays instead of maps keyed by text. Not enumerable: JSON and comparisons ignore them.
   */
  readonly ordinals?: EdgeOrdinals;
};

/** A store that numbers its edges keeps one relationship per unordered pair of entities (SQLite: the canonical key). */
export interface EdgeOrdinals {
  edge: number;
  source: number;
  target: number;
}

/**
 * The whole relationship graph in numbers, as one data version holds it: entities and edges by
 * their ordinals (EdgeOrdinals), each entity's edges in the order edgeListsOf gives them. A walk
 * reads typed arrays instead of edge objects and text keys; the store keeps one per data version.
 * Each unordered pair of entities has at most one edge.
 */
export interface WalkAdjacency {
  /** Entity key -> its ordinal (an entity never part of a relationship may have none). */
  readonly entityNumbers: ReadonlyMap<string, number>;
  /** Entity key by ordinal. */
  readonly entityKeys: readonly string[];
  /** Relationship key, endpoints' ordinals and weight, by edge ordinal. */
  readonly edgeKeys: readonly string[];
  readonly edgeSources: Int32Array;
  readonly edgeTargets: Int32Array;
  readonly edgeWeights: Float64Array;
  /** Entity n's edge ordinals are rowEdges[rowOffsets[n]] up to rowEdges[rowOffsets[n + 1]] (excluded). */
  readonly rowOffsets: Int32Array;
  readonly rowEdges: Int32Array;
}

export interface GraphView {
  entities: GraphEntity[];
  relationships: GraphRelationship[];
}

/** One community's finished report, and the content hash it was written for. */
export interface ReportSave {
  id: string;
  report: CommunityRecord["report"];
  reportHash: string;
}

/** A document and all its chunks, as indexing registers them. */
export interface DocumentRegistration {
  document: DocumentRecord;
  chunks: ChunkRecord[];
}

/** A document's new status, and the error that explains a failure (null otherwise). */
export interface DocumentStatusUpdate {
  id: string;
  status: DocumentStatus;
  error: string | null;
}

/** How a vector namespace is searched; for an HNSW file, its size and whether it is up to date. */
export interface VectorIndexStatus {
  namespace: VectorNamespace;
  /** "neo4j": searched through the Neo4j server's vector index (see neo4jIndex). */
  kind: "exact" | "hnsw" | "neo4j";
  vectors: number;
  fresh: boolean;
  /** Bytes of the HNSW file (absent for exact search or a missing file). */
  bytes?: number;
  /** Vectors written since the file was saved: scored exactly until it is refreshed. */
  pending?: number;
  /** Segment files beside the main HNSW file (rows added since it was saved; folded in later). */
  segments?: number;
  /** A background process is folding the segments into the main file now. */
  folding?: boolean;
  /** Why the last background fold failed (the segments stay in use; the next fold tries again). */
  foldError?: string;
  /** The Neo4j vector index of the namespace (shared by the database's workspaces), when it has one. */
  neo4jIndex?: Neo4jVectorIndexState;
}

export interface Neo4jVectorIndexState {
  name: string;
  /** ONLINE, POPULATING or FAILED. */
  state: string;
  populationPercent: number;
  /** The dimension the index was created for (null when Neo4j did not record one). */
  dimension: number | null;
}

/**
 * The one storage interface. Two adapters implement it: SQLite (embedded default, one file per
 * workspace) and Neo4j. Merge rules live outside the store; adapters only persist and search.
 *
 * Every method is async so that both adapters fit. Methods documented as atomic must leave the
 * store unchanged if they fail half-way.
 */
export interface GraphStore {
  readonly kind: "sqlite" | "neo4j";
  close(): Promise<void>;
  /**
   * Runs `work` as the workspace's only writer, for a store shared through a server (Neo4j); the
   * embedded store is guarded by its workspace folder's lock instead.
   */
  withWriterLease?<T>(work: () => Promise<T>): Promise<T>;

  // ---- workspace metadata (embedding model and dimension, extractor kind, ...) ----
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;

  // ---- documents ----
  upsertDocument(doc: DocumentRecord): Promise<void>;
  /** Atomic. upsertDocument for several documents in one transaction (a commit per document is slow). */
  upsertDocuments(docs: DocumentRecord[]): Promise<void>;
  getDocument(id: string): Promise<DocumentRecord | undefined>;
  listDocuments(): Promise<DocumentRecord[]>;
  /** Every document's id and title, as listDocuments orders them (optional: a lean read for queries). */
  listDocumentTitles?(): Promise<{ id: string; title: string }[]>;
  /**
   * A value that changes whenever a document may have been added, retitled or removed, by this
   * process or another, but not with status updates (optional, beside listDocumentTitles).
   */
  documentTitlesVersion?(): string;
  setDocumentStatus(id: string, status: DocumentStatus, error: string | null): Promise<void>;
  /**
   * Atomic. setDocumentStatus for several documents in one transaction; an unknown document
   * refuses the whole call (a commit per document is slow on a server).
   */
  setDocumentStatuses(updates: DocumentStatusUpdate[]): Promise<void>;
  /**
   * Atomic. For each document, upsertDocument then replaceDocumentChunks (its chunk count becomes
   * the number of chunks given), all in one transaction: what indexing does to register a batch.
   */
  registerDocuments(registrations: DocumentRegistration[]): Promise<void>;

  // ---- chunks ----
  /**
   * Atomic. Replaces the document's chunks (and their full-text entries); new chunks start
   * 'pending'. Chunks whose id is unchanged keep their state and mentions.
   */
  replaceDocumentChunks(docId: string, chunks: ChunkRecord[]): Promise<void>;
  getChunks(ids: string[]): Promise<ChunkRecord[]>;
  listChunks(docId?: string): Promise<ChunkRecord[]>;
  getChunkStates(docId?: string): Promise<ChunkState[]>;
  markChunkFailed(chunkId: string, error: string, rawOutput: string | null): Promise<void>;
  /** Document ids and metadata filters resolved to chunk ids; undefined scope means all. */
  chunkIdsInScope(scope: Scope): Promise<Set<string>>;

  // ---- merge ----
  /**
   * Atomic. Stores one chunk's mentions, applies the graph changes computed from them, and marks
   * the chunk 'merged'. A crash leaves either all of it or none of it.
   */
  commitChunkMerge(
    chunkId: string,
    mentions: { entities: EntityMention[]; relationships: RelationshipMention[] },
    changes: GraphChanges,
  ): Promise<void>;
  /**
   * Atomic. The same for several chunks at once, with changes planned for all of them together
   * (the indexer merges in batches so popular entities are rewritten once per batch). A merge
   * with `partial` marks its chunk 'partial' instead of 'merged', in the same transaction.
   */
  commitChunkMerges(
    merges: {
      chunkId: string;
      mentions: { entities: EntityMention[]; relationships: RelationshipMention[] };
      partial?: ChunkPartial;
    }[],
    changes: GraphChanges,
  ): Promise<void>;
  /** Atomic. Applies changes that are not tied to one chunk (summaries, rebuilds after delete). */
  applyGraphChanges(changes: GraphChanges): Promise<void>;
  getEntityMentions(entityKeys: string[]): Promise<EntityMention[]>;
  getRelationshipMentions(relationshipKeys: string[]): Promise<RelationshipMention[]>;
  /** All mentions stored for these chunks (the cached extractions used to rebuild after delete). */
  getChunkMentions(
    chunkIds: string[],
  ): Promise<{ entities: EntityMention[]; relationships: RelationshipMention[] }>;

  // ---- graph reads ----
  getEntities(keys: string[]): Promise<EntityRecord[]>;
  /**
   * getEntities for queries, which only read what they get: the adapter's cached records themselves
   * where it keeps a read cache (frozen, so a change throws), without the copies getEntities hands
   * out. Optional: getEntities otherwise.
   */
  cachedEntities?(keys: string[]): Promise<readonly EntityRecord[]>;
  /**
   * Name and type of the entities, in the order of `keys`, unknown keys skipped (optional: read
   * through getEntities where an adapter lacks it). A neighbourhood of hubs labels hundreds of
   * entities whose full records (fragments, provenance) were most of its time.
   */
  entityLabels?(keys: string[]): Promise<EntityLabel[]>;
  getRelationships(keys: string[]): Promise<RelationshipRecord[]>;
  /**
   * getRelationships for queries, served from a read cache where the adapter keeps one (optional:
   * getRelationships otherwise). Apart from getRelationships so that an indexer's reads between
   * its writes never build or catch up that cache.
   */
  cachedRelationships?(keys: string[]): Promise<RelationshipRecord[]>;
  listEntities(): Promise<EntityRecord[]>;
  listRelationships(): Promise<RelationshipRecord[]>;
  /** Relationships with at least one endpoint among the keys. */
  relationshipsOf(entityKeys: string[]): Promise<RelationshipRecord[]>;
  /**
   * The same relationships as relationshipsOf, in the same order, as bare edges (optional: derived
   * from relationshipsOf where an adapter lacks it). A walk needs only endpoints and weights, and
   * reading a hub's thousands of full records was most of a graph query's time.
   */
  edgesOf?(entityKeys: string[]): Promise<GraphEdge[]>;
  /**
   * Each entity's edges (those edgesOf gives for it alone, in that order; a key with none maps to
   * an empty list), optional: callers that memoise per entity skip edgesOf's merge of the lists.
   */
  edgeListsOf?(entityKeys: string[]): Promise<Map<string, GraphEdge[]>>;
  /**
   * The numbered graph of the current data version (optional; undefined where the store keeps
   * none): the same edges, in the same order, as edgeListsOf.
   */
  walkAdjacency?(): WalkAdjacency | undefined;
  /** Number of relationships of each entity. */
  degrees(entityKeys: string[]): Promise<Map<string, number>>;
  /**
   * One hop of a neighbourhood walk in one read: the entities related to any of `frontier` that are
   * not in `known`, each ranked by its strongest relationship to the frontier (ties by key), at
   * most `limit`.
   */
  neighboursOf(frontier: string[], known: string[], limit: number): Promise<string[]>;
  /**
   * The relationships with both endpoints among the keys (the edges inside a node set) in one
   * read, strongest first (ties by key), at most `limit`. Without fragments, keywords and
   * provenance: a neighbourhood of hubs draws thousands of them, and copying whole records was a
   * large part of its time.
   */
  relationshipsAmong(entityKeys: string[], limit: number): Promise<DescribedEdge[]>;
  /**
   * The whole graph without fragments and provenance, in key order (optional: read through
   * listEntities and listRelationships where an adapter lacks it). Fragments repeat the
   * description, so leaving them out roughly halves what embedding and communities hold.
   */
  listGraph?(): Promise<GraphView>;
  /** Every entity key and relationship endpoint pair with its weight: what clustering reads. */
  listClusterGraph?(): Promise<ClusterGraph>;
  entitiesNeedingSummary(): Promise<EntityRecord[]>;
  relationshipsNeedingSummary(): Promise<RelationshipRecord[]>;
  counts(): Promise<GraphCounts>;
  /**
   * Documents not fully indexed yet (pending or processing): an index run is under way or was
   * stopped. Cheap enough for every query (an indexed count, or cached per data version).
   */
  unfinishedDocumentCount(): Promise<number>;

  // ---- delete ----
  /**
   * Atomic. Removes the documents, their chunks, chunk vectors, full-text entries and mentions.
   * Returns the entity and relationship keys that lost mentions and must be rebuilt.
   */
  deleteDocuments(docIds: string[]): Promise<{ entityKeys: string[]; relationshipKeys: string[] }>;

  // ---- vectors (one index per namespace) ----
  upsertVectors(ns: VectorNamespace, items: VectorItem[]): Promise<void>;
  deleteVectors(ns: VectorNamespace, ids: string[]): Promise<void>;
  /**
   * A value that changes whenever anything stored may have changed, by this process or another
   * (optional). Query-side caches of whole-store reads key on it where an adapter has it.
   */
  dataGeneration?(): string;
  /** textHash of each stored vector, to skip items whose text did not change. */
  vectorHashes(ns: VectorNamespace): Promise<Map<string, string>>;
  /** Cosine similarity, best first. `allow` restricts the candidates before ranking. */
  searchVectors(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): Promise<ScoredId[]>;

  // ---- full text ----
  /** BM25 over chunk text (Chinese segmented), best first; scores are higher-is-better. */
  searchChunkText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]>;
  /**
   * Small-to-Big: BM25 over each chunk's sentences; returns the parent chunks ranked by their best
   * sentence, best first. Optional: a store without it is matched at passage level only.
   */
  searchChunkUnits?(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]>;
  /** Entity keys whose name or description matches the text, best first. */
  searchEntityText(query: string, topK: number): Promise<ScoredId[]>;
  /**
   * Relationship keys by BM25 over their endpoint keys, keywords and description (see
   * relationshipSearchText), best first; `allow` restricts the candidates before ranking. An
   * adapter may leave a query's commonest terms out to bound its cost (SQLite does, see
   * text/term-budget.ts), so fewer than topK hits can come back where only those terms match.
   */
  searchRelationshipText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]>;

  // ---- communities ----
  /** Atomic. Replaces the whole hierarchy (reports of unchanged communities are passed in). */
  replaceCommunities(communities: CommunityRecord[]): Promise<void>;
  listCommunities(): Promise<CommunityRecord[]>;
  saveCommunityReport(id: string, report: CommunityRecord["report"], reportHash: string): Promise<void>;
  /** Atomic. Several reports in one transaction (a commit per report is slow on a server). */
  saveCommunityReports(saves: ReportSave[]): Promise<void>;

  // ---- LLM cache and history ----
  getLlmCache(stage: string, model: string, promptHash: string): Promise<LlmCacheEntry | undefined>;
  putLlmCache(entry: LlmCacheEntry): Promise<void>;
  listHistory(key?: string): Promise<HistoryEntry[]>;

  // ---- bulk reads for `kgrag migrate` (optional: what an adapter lacks is reported as not copied) ----
  listMeta?(): Promise<Record<string, string>>;
  getVectors?(ns: VectorNamespace, ids: string[]): Promise<VectorItem[]>;
  listLlmCache?(): Promise<LlmCacheEntry[]>;

  // ---- approximate vector index (optional: the embedded store keeps HNSW files beside SQLite) ----
  vectorIndexStatus?(): Promise<VectorIndexStatus[]>;
  /** Brings derived indexes (full text, HNSW files) up to date; a writer calls it after a run. */
  refreshIndexes?(): Promise<void>;
  /**
   * Indexes the queued chunk text (full text) a slice of chunks at a time with a pause between
   * slices: an index run does it while the model extracts, so a reply that arrives meanwhile waits
   * for one slice at most (a request takes several turns of the event loop to go out, so a pause,
   * not just a turn) and the run's end has less left to index. Stops at `signal`, leaving the rest
   * queued for refreshIndexes.
   */
  indexChunkText?(slice: ChunkTextSlices, signal?: AbortSignal): Promise<void>;
}

/** Chunks indexed per slice and the pause after each (config indexOverlap). */
export interface ChunkTextSlices {
  rows: number;
  pauseMs: number;
}
