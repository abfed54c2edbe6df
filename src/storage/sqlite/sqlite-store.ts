import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClusterGraph } from "../../community/cluster.js";
import {
  type SqliteReadCacheConfig,
  SqliteReadCacheSchema,
  type SqliteSearchConfig,
  SqliteSearchSchema,
  type VectorIndexConfig,
  VectorIndexSchema,
} from "../../config.js";
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
} from "../../types.js";
import { VECTOR_NAMESPACES } from "../../types.js";
import { type ProgressReporter, silentProgress } from "../../util/progress.js";
import type {
  ChunkTextSlices,
  DescribedEdge,
  DocumentRegistration,
  DocumentStatusUpdate,
  EntityLabel,
  GraphEdge,
  GraphStore,
  GraphView,
  ReportSave,
  VectorIndexStatus,
  WalkAdjacency,
} from "../graph-store.js";
import { AnnFiles } from "./ann-file.js";
import { AnnVectors } from "./ann-vectors.js";
import type { BackgroundFold } from "./background-fold.js";
import { ChunkTable } from "./chunks.js";
import { CommunityTable } from "./communities.js";
import { BUSY_TIMEOUT_MS, openDatabase, Sql, type SqliteDatabase } from "./connection.js";
import { DocumentTable } from "./documents.js";
import { EntityTable } from "./entities.js";
import { FullTextIndex } from "./fts.js";
import { GenerationMap } from "./generation-map.js";
import { HistoryLog } from "./history.js";
import { LlmCacheTable } from "./llm-cache.js";
import { LogCheckpointer } from "./log-checkpointer.js";
import { type ChunkMentions, MentionTable } from "./mentions.js";
import { RelationshipTable } from "./relationships.js";
import { VectorIndex } from "./vector-index.js";

export const SQLITE_FILE_NAME = "kgrag.sqlite";

/** The workspace's SQLite file. */
export function sqliteFile(workspaceDir: string): string {
  return join(workspaceDir, SQLITE_FILE_NAME);
}

export interface SqliteStoreOptions {
  vectorIndex?: VectorIndexConfig;
  readCache?: SqliteReadCacheConfig;
  search?: SqliteSearchConfig;
  /** Page size of the file when this call creates it (ignored for an existing file). */
  pageSize?: number;
  /** Shows a bar while an HNSW file is rebuilt. */
  progress?: ProgressReporter;
  /**
   * While this connection writes, its write-ahead log is copied into the file every this many ms,
   * on a thread of its own (config `sqliteCheckpointEveryMs`); 0: only when the indexes are refreshed.
   */
  checkpointEveryMs?: number;
}

/**
 * Opens (creating if missing) the embedded store of a workspace: one SQLite file in WAL mode, and
 * HNSW files for large dense vector sets in its `vectors/` folder.
 */
export async function openSqliteStore(
  workspaceDir: string,
  options: SqliteStoreOptions = {},
): Promise<SqliteGraphStore> {
  const { db, migrated } = openDatabase(sqliteFile(workspaceDir), options.pageSize);
  return new SqliteGraphStore(db, { ...options, workspaceDir, migrated });
}

/**
 * GraphStore on one SQLite file. The work is synchronous (better-sqlite3); each table has its own
 * module and this class only composes them, wrapping atomic operations in one transaction.
 */
export class SqliteGraphStore implements GraphStore {
  readonly kind = "sqlite" as const;
  private readonly sql: Sql;
  private readonly documents: DocumentTable;
  private readonly chunks: ChunkTable;
  private readonly mentions: MentionTable;
  private readonly entities: EntityTable;
  private readonly relationships: RelationshipTable;
  private readonly vectors: VectorIndex;
  private readonly fullText: FullTextIndex;
  private readonly communities: CommunityTable;
  private readonly llmCache: LlmCacheTable;
  private readonly history: HistoryLog;
  private documentList: { generation: string; documents: DocumentRecord[] } | undefined;
  /** Every query asks how many documents are unfinished (its warning): counted once per data generation. */
  private unfinishedDocuments: { generation: string; count: number } | undefined;
  /** Documents read one by one in this data generation (a query reads its passages' documents twice). */
  private readonly documentById: GenerationMap<string, DocumentRecord | undefined>;

  private readonly ann: AnnVectors | undefined;
  /** Checkpoints off the main thread (a file-backed store only). */
  private readonly logCheckpoints: LogCheckpointer | undefined;
  private readonly checkpointTimer: NodeJS.Timeout | undefined;
  private readonly readCache: SqliteReadCacheConfig;
  private readonly progress: ProgressReporter;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteStoreOptions & { workspaceDir?: string; migrated?: boolean } = {},
  ) {
    this.sql = new Sql(db);
    if (options.migrated) this.sql.noteWrite();
    this.readCache = options.readCache ?? SqliteReadCacheSchema.parse({});
    this.fullText = new FullTextIndex(this.sql, {
      maxOwnerIds: this.readCache.maxSearchHitIds,
      maxEntitySearches: this.readCache.maxEntitySearches,
      chunkPostingBudget: (options.search ?? SqliteSearchSchema.parse({})).chunkPostingBudget,
    });
    this.documentById = new GenerationMap(this.sql, this.readCache.maxDocuments);
    const config = options.vectorIndex ?? VectorIndexSchema.parse({});
    this.progress = options.progress ?? silentProgress;
    this.ann = options.workspaceDir
      ? new AnnVectors(this.sql, new AnnFiles(options.workspaceDir), config, this.progress)
      : undefined;
    this.vectors = new VectorIndex(this.sql, this.ann && { vectors: this.ann, config });
    this.documents = new DocumentTable(this.sql);
    this.chunks = new ChunkTable(this.sql, this.fullText, this.vectors, this.readCache.maxChunks);
    this.mentions = new MentionTable(this.sql);
    this.entities = new EntityTable(this.sql, this.fullText, this.readCache.maxEntities);
    this.relationships = new RelationshipTable(
      this.sql,
      this.fullText,
      this.readCache.maxRelationships,
      this.readCache.maxWholeGraphEdges,
    );
    this.communities = new CommunityTable(this.sql);
    this.llmCache = new LlmCacheTable(this.sql);
    this.history = new HistoryLog(this.sql);
    this.logCheckpoints = db.memory
      ? undefined
      : new LogCheckpointer({
          file: db.name,
          busyTimeoutMs: BUSY_TIMEOUT_MS,
          onMainThread: () => this.db.pragma("wal_checkpoint(PASSIVE)"),
        });
    this.checkpointTimer = this.checkpointWhileWriting(options.checkpointEveryMs ?? 0);
  }

  /**
   * Every `everyMs`, a checkpoint when this connection wrote since the last one: the log's pages
   * reach the disk while the writer works (an index run waits for its model most of the time),
   * rather than all in the checkpoint that follows its last writes, on its way to the end.
   */
  private checkpointWhileWriting(everyMs: number): NodeJS.Timeout | undefined {
    const checkpoints = this.logCheckpoints;
    if (!checkpoints || everyMs === 0) return undefined;
    let checkpointedAt = this.sql.writeCount();
    const timer = setInterval(() => {
      const writes = this.sql.writeCount();
      if (writes === checkpointedAt || !this.db.open) return;
      checkpointedAt = writes;
      // A failed copy is left to the next one, or to closing, which copies the rest.
      checkpoints.checkpoint().catch(() => {});
    }, everyMs);
    // Not a reason for the process to stay: closing copies whatever is left.
    timer.unref();
    return timer;
  }

  /** A connection that wrote indexes its queued full-text rows first, so the next reader finds them. */
  async close(): Promise<void> {
    clearInterval(this.checkpointTimer);
    // First: the main connection, closed last, copies what is left and removes the log.
    await this.logCheckpoints?.close();
    this.ann?.close();
    if (!this.db.open) return;
    if (this.sql.hasWritten()) this.fullText.flushAll();
    this.db.close();
  }

  /** Each namespace's search path and, for HNSW, its file's size and freshness. */
  async vectorIndexStatus(): Promise<VectorIndexStatus[]> {
    return VECTOR_NAMESPACES.map((ns) => {
      const vectors = this.vectors.size(ns);
      const path = this.vectors.searchPath(ns);
      if (path === "exact" || !this.ann) return { namespace: ns, kind: "exact", vectors, fresh: true };
      const status = this.ann.status(ns);
      return { namespace: ns, kind: "hnsw", vectors, ...status };
    });
  }

  /**
   * Indexes the queued full-text rows, brings every HNSW file up to date (building missing ones)
   * and forgets the deletes they now reflect, and empties the relationship change log. Writers
   * call it after a run; readers never need to (they score vectors newer than the file exactly).
   */
  async refreshIndexes(): Promise<void> {
    this.flushFullText();
    this.relationships.pruneChangeLog();
    if (this.ann) {
      for (const ns of VECTOR_NAMESPACES) {
        if (this.vectors.searchPath(ns) === "ann") this.ann.refresh(ns);
        this.sql.transaction(() => this.ann?.pruneRemovals(ns));
      }
      this.ann.startDueFolds();
    }
    await this.checkpointLog();
  }

  /**
   * Copies the write-ahead log into the database file now (a passive checkpoint: it waits for no
   * reader or writer), after a run's bulk is written: an index run then still waits for its last
   * model replies, and closing the workspace, which would otherwise do it, has little left to copy.
   * On the checkpoint thread, so the main thread reads those replies meanwhile.
   */
  private async checkpointLog(): Promise<void> {
    if (!this.sql.hasWritten()) return;
    if (this.logCheckpoints) await this.logCheckpoints.checkpoint();
    else this.db.pragma("wal_checkpoint(PASSIVE)");
  }

  /** The background folds this connection started (a bench waits for them to end). */
  backgroundFolds(): readonly BackgroundFold[] {
    return this.ann?.backgroundFolds() ?? [];
  }

  /** Reported as a step when rows are queued, so a bench can tell its cost from the HNSW files'. */
  private flushFullText(): void {
    const queued = this.fullText.queued();
    if (queued === 0) return;
    const step = "full-text index";
    this.progress.start(step, queued);
    this.fullText.flushAll();
    this.progress.finish(step);
  }

  async indexChunkText(slice: ChunkTextSlices, signal?: AbortSignal): Promise<void> {
    while (this.db.open && !signal?.aborted && this.fullText.flushChunkSlice(slice.rows)) {
      // Cut short when the signal aborts: the caller indexes the rest in one go, or the next run.
      await sleep(slice.pauseMs, undefined, { signal }).catch(() => {});
    }
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.sql.column<string>("SELECT value FROM meta WHERE key = ?", key)[0];
  }

  /**
   * The workspace's metadata. The store's own keys (schema version, full-text versions, change-log
   * position: all under `sqlite.`) are not workspace data and are left out.
   */
  async listMeta(): Promise<Record<string, string>> {
    const rows = this.sql.all<{ key: string; value: string }>(
      "SELECT key, value FROM meta WHERE key NOT LIKE 'sqlite.%' ORDER BY key",
    );
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  }

  async getVectors(ns: VectorNamespace, ids: string[]): Promise<VectorItem[]> {
    return this.vectors.get(ns, ids);
  }

  async listLlmCache(): Promise<LlmCacheEntry[]> {
    return this.llmCache.list();
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.sql.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
  }

  async upsertDocument(doc: DocumentRecord): Promise<void> {
    this.documents.upsert(doc);
  }

  async upsertDocuments(docs: DocumentRecord[]): Promise<void> {
    this.sql.transaction(() => {
      for (const doc of docs) this.documents.upsert(doc);
    });
  }

  /**
   * Remembered while the data is unchanged: every query reads the documents of its passages, for
   * their titles and for their pages, and the same documents come back query after query.
   */
  async getDocument(id: string): Promise<DocumentRecord | undefined> {
    const records = this.documentById.current(1);
    if (!records.has(id)) records.set(id, this.documents.get(id));
    const doc = records.get(id);
    // A copy: a caller changing its record must not change the cache.
    return doc && { ...doc, metadata: { ...doc.metadata } };
  }

  /** Queries ask for every document (their titles name subjects); read once per data generation. */
  async listDocuments(): Promise<DocumentRecord[]> {
    const generation = this.sql.generation();
    if (this.documentList?.generation !== generation) {
      this.documentList = { generation, documents: this.documents.list() };
    }
    // Copies: a caller changing its records must not change the cache.
    return this.documentList.documents.map((doc) => ({ ...doc, metadata: { ...doc.metadata } }));
  }

  async listDocumentTitles(): Promise<{ id: string; title: string }[]> {
    return this.documents.titles();
  }

  documentTitlesVersion(): string {
    return this.documents.titlesVersion.current();
  }

  async setDocumentStatus(id: string, status: DocumentStatus, error: string | null): Promise<void> {
    this.documents.setStatus(id, status, error);
  }

  async setDocumentStatuses(updates: DocumentStatusUpdate[]): Promise<void> {
    this.sql.transaction(() => {
      for (const { id, status, error } of updates) this.documents.setStatus(id, status, error);
    });
  }

  async replaceDocumentChunks(docId: string, chunks: ChunkRecord[]): Promise<void> {
    this.sql.transaction(() => this.replaceChunksOf(docId, chunks));
  }

  async registerDocuments(registrations: DocumentRegistration[]): Promise<void> {
    this.sql.transaction(() => {
      for (const { document, chunks } of registrations) {
        this.documents.upsert(document);
        this.replaceChunksOf(document.id, chunks);
      }
    });
  }

  private replaceChunksOf(docId: string, chunks: ChunkRecord[]): void {
    if (!this.documents.exists(docId)) {
      throw new Error(`Cannot store chunks of unknown document "${docId}": upsert the document first.`);
    }
    this.chunks.replaceForDocument(docId, chunks);
    this.documents.setChunkCount(docId, chunks.length);
  }

  async getChunks(ids: string[]): Promise<ChunkRecord[]> {
    return this.chunks.get(ids);
  }

  async listChunks(docId?: string): Promise<ChunkRecord[]> {
    return this.chunks.list(docId);
  }

  async getChunkStates(docId?: string): Promise<ChunkState[]> {
    return this.chunks.states(docId);
  }

  async markChunkFailed(chunkId: string, error: string, rawOutput: string | null): Promise<void> {
    this.chunks.markFailed(chunkId, error, rawOutput);
  }

  async chunkIdsInScope(scope: Scope): Promise<Set<string>> {
    return this.documents.chunkIdsInScope(scope);
  }

  async commitChunkMerge(chunkId: string, mentions: ChunkMentions, changes: GraphChanges): Promise<void> {
    await this.commitChunkMerges([{ chunkId, mentions }], changes);
  }

  async commitChunkMerges(
    merges: { chunkId: string; mentions: ChunkMentions; partial?: ChunkPartial }[],
    changes: GraphChanges,
  ): Promise<void> {
    this.sql.transaction(() => {
      for (const { chunkId, mentions, partial } of merges) {
        this.chunks.markMerged(chunkId, partial);
        this.mentions.replaceForChunk(chunkId, mentions);
      }
      this.applyChanges(changes);
    });
  }

  async applyGraphChanges(changes: GraphChanges): Promise<void> {
    this.sql.transaction(() => this.applyChanges(changes));
  }

  async getEntityMentions(entityKeys: string[]): Promise<EntityMention[]> {
    return this.mentions.ofEntities(entityKeys);
  }

  async getRelationshipMentions(relationshipKeys: string[]): Promise<RelationshipMention[]> {
    return this.mentions.ofRelationships(relationshipKeys);
  }

  async getChunkMentions(chunkIds: string[]): Promise<ChunkMentions> {
    return this.mentions.ofChunks(chunkIds);
  }

  async getEntities(keys: string[]): Promise<EntityRecord[]> {
    return this.entities.get(keys);
  }

  async cachedEntities(keys: string[]): Promise<readonly EntityRecord[]> {
    return this.entities.cached(keys);
  }

  async entityLabels(keys: string[]): Promise<EntityLabel[]> {
    return this.entities.labels(keys);
  }

  async getRelationships(keys: string[]): Promise<RelationshipRecord[]> {
    return this.relationships.get(keys);
  }

  async cachedRelationships(keys: string[]): Promise<RelationshipRecord[]> {
    return this.relationships.cached(keys);
  }

  async listEntities(): Promise<EntityRecord[]> {
    return this.entities.list();
  }

  async listRelationships(): Promise<RelationshipRecord[]> {
    return this.relationships.list();
  }

  /** Read in one transaction, so both lists come from the same state of the graph. */
  async listGraph(): Promise<GraphView> {
    const read = () => ({ entities: this.entities.listLean(), relationships: this.relationships.listLean() });
    return this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }

  async listClusterGraph(): Promise<ClusterGraph> {
    const read = () => ({ entityKeys: this.entities.keys(), edges: this.relationships.weightedEdges() });
    return this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }

  async relationshipsOf(entityKeys: string[]): Promise<RelationshipRecord[]> {
    return this.relationships.touching(entityKeys);
  }

  async edgesOf(entityKeys: string[]): Promise<GraphEdge[]> {
    return this.relationships.edgesTouching(entityKeys);
  }

  async edgeListsOf(entityKeys: string[]): Promise<Map<string, GraphEdge[]>> {
    return this.relationships.edgeLists(entityKeys);
  }

  walkAdjacency(): WalkAdjacency | undefined {
    const { walkAdjacency, walkAdjacencyAfterWalks } = this.readCache;
    return walkAdjacency ? this.relationships.walkAdjacency(walkAdjacencyAfterWalks) : undefined;
  }

  async degrees(entityKeys: string[]): Promise<Map<string, number>> {
    return this.relationships.degrees(entityKeys);
  }

  async neighboursOf(frontier: string[], known: string[], limit: number): Promise<string[]> {
    return this.relationships.neighbours(frontier, known, limit);
  }

  async relationshipsAmong(entityKeys: string[], limit: number): Promise<DescribedEdge[]> {
    return this.relationships.among(entityKeys, limit);
  }

  async entitiesNeedingSummary(): Promise<EntityRecord[]> {
    return this.entities.needingSummary();
  }

  async relationshipsNeedingSummary(): Promise<RelationshipRecord[]> {
    return this.relationships.needingSummary();
  }

  async counts(): Promise<GraphCounts> {
    return this.sql.get<GraphCounts>(
      `SELECT
         (SELECT count(*) FROM documents) AS documents,
         (SELECT count(*) FROM chunks) AS chunks,
         (SELECT count(*) FROM entities) AS entities,
         (SELECT count(*) FROM relationships) AS relationships,
         (SELECT count(*) FROM communities) AS communities,
         (SELECT count(*) FROM documents WHERE status = 'failed') AS failedDocuments,
         (SELECT count(*) FROM chunks WHERE status = 'failed') AS failedChunks,
         (SELECT count(*) FROM chunks WHERE status = 'partial') AS partialChunks`,
    ) as GraphCounts;
  }

  async unfinishedDocumentCount(): Promise<number> {
    const generation = this.sql.generation();
    if (this.unfinishedDocuments?.generation !== generation) {
      // documents_by_status answers this from the index alone.
      const row = this.sql.get<{ n: number }>(
        `SELECT count(*) AS n FROM documents WHERE status IN ('pending', 'processing')`,
      );
      this.unfinishedDocuments = { generation, count: row?.n ?? 0 };
    }
    return this.unfinishedDocuments.count;
  }

  async deleteDocuments(docIds: string[]): Promise<{ entityKeys: string[]; relationshipKeys: string[] }> {
    return this.sql.transaction(() => {
      const chunkRefs = this.chunks.refsOfDocuments(docIds);
      const affected = this.mentions.keysOfChunks(chunkRefs.map((ref) => ref.id));
      this.chunks.remove(chunkRefs);
      this.documents.deleteMany(docIds);
      return affected;
    });
  }

  async upsertVectors(ns: VectorNamespace, items: VectorItem[]): Promise<void> {
    this.sql.transaction(() => this.vectors.upsert(ns, items));
  }

  async deleteVectors(ns: VectorNamespace, ids: string[]): Promise<void> {
    this.sql.transaction(() => this.vectors.delete(ns, ids));
  }

  /** SQLite's data_version with this connection's own writes (see Sql.generation). */
  dataGeneration(): string {
    return this.sql.generation();
  }

  async vectorHashes(ns: VectorNamespace): Promise<Map<string, string>> {
    return this.vectors.hashes(ns);
  }

  async searchVectors(
    ns: VectorNamespace,
    query: number[],
    topK: number,
    allow?: Set<string>,
  ): Promise<ScoredId[]> {
    return this.vectors.search(ns, query, topK, allow);
  }

  async searchChunkText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    return this.fullText.searchChunks(query, topK, allow);
  }

  async searchChunkUnits(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    return this.fullText.searchChunkUnits(query, topK, allow);
  }

  async searchEntityText(query: string, topK: number): Promise<ScoredId[]> {
    return this.fullText.searchEntities(query, topK);
  }

  async searchRelationshipText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    return this.fullText.searchRelationships(query, topK, allow);
  }

  async replaceCommunities(communities: CommunityRecord[]): Promise<void> {
    this.sql.transaction(() => this.communities.replaceAll(communities));
  }

  async listCommunities(): Promise<CommunityRecord[]> {
    return this.communities.list();
  }

  async saveCommunityReport(
    id: string,
    report: CommunityRecord["report"],
    reportHash: string,
  ): Promise<void> {
    this.sql.transaction(() => this.communities.saveReport(id, report, reportHash));
  }

  async saveCommunityReports(saves: ReportSave[]): Promise<void> {
    this.sql.transaction(() => {
      for (const save of saves) this.communities.saveReport(save.id, save.report, save.reportHash);
    });
  }

  async getLlmCache(stage: string, model: string, promptHash: string): Promise<LlmCacheEntry | undefined> {
    return this.llmCache.get(stage, model, promptHash);
  }

  async putLlmCache(entry: LlmCacheEntry): Promise<void> {
    this.llmCache.put(entry);
  }

  async listHistory(key?: string): Promise<HistoryEntry[]> {
    return this.history.list(key);
  }

  /** Deletes first, so a rebuild may delete and re-create the same key in one change set. */
  private applyChanges(changes: GraphChanges): void {
    for (const key of changes.deleteRelationshipKeys) this.relationships.delete(key);
    for (const key of changes.deleteEntityKeys) this.entities.delete(key);
    for (const entity of changes.upsertEntities) this.entities.upsert(entity);
    for (const relationship of changes.upsertRelationships) this.relationships.upsert(relationship);
    this.history.append(changes.history);
  }
}
