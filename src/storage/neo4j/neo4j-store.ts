import type {
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
import type {
  DescribedEdge,
  DocumentRegistration,
  DocumentStatusUpdate,
  GraphStore,
  GraphView,
  ReportSave,
  VectorIndexStatus,
} from "../graph-store.js";
import { CoalescingWriter } from "./change-queue.js";
import * as communities from "./communities.js";
import { DEFAULT_TUNING, Neo4jConnection } from "./connection.js";
import * as documents from "./documents.js";
import { type Neo4jSettings, type Neo4jTuning, openDriverRunner, TUNING_KEYS } from "./driver-runner.js";
import { GenerationCache } from "./generation-cache.js";
import { GenerationMemo } from "./generation-memo.js";
import * as reads from "./graph-reads.js";
import { listGraph } from "./graph-view.js";
import {
  applyGraphChangeSets,
  type ChunkMentions,
  type ChunkMerge,
  commitChunkMerges,
} from "./graph-writes.js";
import { KeyBatcher } from "./key-batcher.js";
import { ensureSchema, VectorIndexes, vectorIndexStates } from "./schema-setup.js";
import * as search from "./search.js";
import { backfillRelationshipSearchText } from "./search-text-backfill.js";
import { InMemoryTextSearch } from "./text-search.js";
import { VectorIndexNeed } from "./vector-index-need.js";
import { InMemoryVectors } from "./vector-memory.js";
import { VectorStatsCache } from "./vector-stats.js";
import * as vectors from "./vectors.js";
import * as data from "./workspace-data.js";
import { withWriterLease } from "./writer-lease.js";

/**
 * Opens the Neo4j store of one workspace: connects, checks the server version and makes sure the
 * constraints and indexes exist, and that relationships written by an older kgrag are searchable.
 * Several kgrag processes may share the database and workspace.
 */
export async function openNeo4jStore(
  settings: Neo4jSettings & Partial<Neo4jTuning>,
  workspace: string,
): Promise<Neo4jGraphStore> {
  const tuning = { ...DEFAULT_TUNING, ...definedOnly(settings) };
  const connection = new Neo4jConnection(await openDriverRunner(settings), workspace, tuning);
  try {
    await ensureSchema(connection);
    await backfillRelationshipSearchText(connection);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return new Neo4jGraphStore(connection);
}

/** The tuning values a caller set (a settings object may carry them as undefined). */
function definedOnly(settings: Partial<Neo4jTuning>): Partial<Neo4jTuning> {
  return Object.fromEntries(
    TUNING_KEYS.flatMap((key) => (settings[key] === undefined ? [] : [[key, settings[key]]])),
  );
}

/** GraphStore on Neo4j. Each concern has its own module; this class only routes to them. */
export class Neo4jGraphStore implements GraphStore {
  readonly kind = "neo4j" as const;
  private readonly indexes: VectorIndexes;
  private readonly vectorStats: VectorStatsCache;
  private readonly graphChanges: CoalescingWriter<GraphChanges>;
  private readonly documentReads: KeyBatcher<DocumentRecord>;
  private readonly documentChunkReads: KeyBatcher<ChunkRecord[]>;
  private readonly documentChunkStates: KeyBatcher<ChunkState[]>;
  private readonly cached: GenerationCache;
  /**
   * The dimension each namespace's vectors were written with, known once this store wrote some and
   * forgotten when it deletes any (the namespace may then be empty). Another process cannot change
   * it meanwhile: a workspace keeps one embedding model, and writers take turns (writer lease).
   */
  private readonly vectorDimensions = new Map<VectorNamespace, number>();
  /** The workspace's embedding kind once recorded (see embeddingKind). */
  private knownEmbeddingKind: string | undefined;
  private readonly textSearch: InMemoryTextSearch;
  private readonly vectorsInMemory: InMemoryVectors;
  private readonly vectorIndexNeed: VectorIndexNeed;
  private readonly entityReads: GenerationMemo<EntityRecord>;
  private readonly edgeReads: GenerationMemo<RelationshipRecord[]>;
  private readonly relationshipReads: GenerationMemo<RelationshipRecord>;
  private readonly chunkReads: GenerationMemo<ChunkRecord>;
  private readonly documentMemo: GenerationMemo<DocumentRecord>;
  private readonly documentChunkMemo: GenerationMemo<ChunkRecord[]>;

  /** `generationReuseMs`: see GENERATION_REUSE_MS (tests that play another process set 0). */
  constructor(
    readonly connection: Neo4jConnection,
    generationReuseMs?: number,
  ) {
    this.cached = new GenerationCache(connection, generationReuseMs);
    connection.afterCommit(() => this.cached.clear());
    this.indexes = new VectorIndexes(connection);
    this.vectorStats = new VectorStatsCache(connection, search.COUNT_LIMIT);
    this.graphChanges = new CoalescingWriter(
      (sets) => applyGraphChangeSets(connection, sets),
      connection.tuning.changeSetBatch,
    );
    this.documentReads = new KeyBatcher((ids) => documents.getDocumentsById(connection, ids));
    this.documentChunkReads = new KeyBatcher((ids) => documents.chunksOfDocuments(connection, ids));
    this.documentChunkStates = new KeyBatcher((ids) => documents.chunkStatesOfDocuments(connection, ids));
    this.vectorsInMemory = new InMemoryVectors(
      connection,
      this.cached,
      connection.tuning.inMemoryVectorFloats,
      async (ns) => (await this.counts())[ns],
    );
    this.vectorIndexNeed = new VectorIndexNeed(
      (count, dimension) => this.vectorsInMemory.fits(count, dimension),
      (ns, dimension) => this.namespaceSize(ns, dimension),
    );
    // Concurrent reads share a statement: the summarize step checks hundreds of records at once.
    const entityBatches = new KeyBatcher(async (keys) => {
      return new Map((await reads.getEntities(connection, keys)).map((e) => [e.key, e]));
    }, structuredClone);
    const relationshipBatches = new KeyBatcher(async (keys) => {
      return new Map((await reads.getRelationships(connection, keys)).map((r) => [r.key, r]));
    }, structuredClone);
    this.entityReads = new GenerationMemo(this.cached, "entities", (keys) =>
      batchedReads(entityBatches, keys),
    );
    this.relationshipReads = new GenerationMemo(this.cached, "relationships", (keys) =>
      batchedReads(relationshipBatches, keys),
    );
    this.chunkReads = new GenerationMemo(this.cached, "chunks", async (ids) => {
      return new Map((await documents.getChunks(connection, ids)).map((c) => [c.id, c]));
    });
    this.documentMemo = new GenerationMemo(this.cached, "documents-by-id", (ids) =>
      batchedReads(this.documentReads, ids),
    );
    this.documentChunkMemo = new GenerationMemo(this.cached, "chunks-by-document", (ids) =>
      batchedReads(this.documentChunkReads, ids),
    );
    this.edgeReads = new GenerationMemo(
      this.cached,
      "edges",
      async (keys) => edgesByEntity(keys, await reads.relationshipsOf(connection, keys)),
      // Shared, as the embedded store's relationship cache shares them: graph walks only read edges.
      false,
    );
    this.textSearch = new InMemoryTextSearch(
      connection,
      this.cached,
      async (kind) => (await this.counts())[kind],
      {
        chunks: connection.tuning.inMemoryTextChunks,
        relationships: connection.tuning.inMemoryTextRelationships,
      },
    );
  }

  get workspace(): string {
    return this.connection.workspace;
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /** Runs `work` as the workspace's only writer (see writer-lease.ts). */
  withWriterLease<T>(work: () => Promise<T>): Promise<T> {
    return withWriterLease(this.connection, work);
  }

  /** Deletes every node of this workspace (tests, small workspaces: one transaction). */
  async deleteWorkspace(): Promise<void> {
    this.vectorDimensions.clear();
    this.knownEmbeddingKind = undefined;
    this.vectorIndexNeed.forget();
    await this.connection.write((tx) => tx.run("store/workspace-delete"));
  }

  getMeta(key: string): Promise<string | undefined> {
    return data.getMeta(this.connection, key);
  }

  setMeta(key: string, value: string): Promise<void> {
    return data.setMeta(this.connection, key, value);
  }

  listMeta(): Promise<Record<string, string>> {
    return data.listMeta(this.connection);
  }

  upsertDocument(doc: DocumentRecord): Promise<void> {
    return documents.upsertDocuments(this.connection, [doc]);
  }

  upsertDocuments(docs: DocumentRecord[]): Promise<void> {
    return documents.upsertDocuments(this.connection, docs);
  }

  /** Concurrent reads (the titles of a query's references) share one statement. */
  async getDocument(id: string): Promise<DocumentRecord | undefined> {
    return (await this.documentMemo.get([id])).get(id);
  }

  /** Cached while the workspace is unchanged: queries read the titles every time. */
  async listDocuments(): Promise<DocumentRecord[]> {
    return [...(await this.cached.get("documents", () => documents.listDocuments(this.connection)))];
  }

  setDocumentStatus(id: string, status: DocumentStatus, error: string | null): Promise<void> {
    return documents.setDocumentStatuses(this.connection, [{ id, status, error }]);
  }

  setDocumentStatuses(updates: DocumentStatusUpdate[]): Promise<void> {
    return documents.setDocumentStatuses(this.connection, updates);
  }

  registerDocuments(registrations: DocumentRegistration[]): Promise<void> {
    return documents.registerDocuments(this.connection, registrations);
  }

  replaceDocumentChunks(docId: string, chunks: ChunkRecord[]): Promise<void> {
    return documents.replaceDocumentChunks(this.connection, docId, chunks);
  }

  /** Remembered per write generation, like the other per-key reads a query repeats. */
  async getChunks(ids: string[]): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const found = await this.chunkReads.get(ids);
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** Concurrent reads of single documents' chunks (a query's home passages) share one statement. */
  async listChunks(docId?: string): Promise<ChunkRecord[]> {
    if (docId === undefined) return documents.listChunks(this.connection);
    return (await this.documentChunkMemo.get([docId])).get(docId) ?? [];
  }

  /** Concurrent reads of single documents' chunk states (an index run's documents) share one statement. */
  async getChunkStates(docId?: string): Promise<ChunkState[]> {
    if (docId === undefined) return documents.getChunkStates(this.connection);
    return (await this.documentChunkStates.get(docId)) ?? [];
  }

  markChunkFailed(chunkId: string, error: string, rawOutput: string | null): Promise<void> {
    return documents.markChunkFailed(this.connection, chunkId, error, rawOutput);
  }

  chunkIdsInScope(scope: Scope): Promise<Set<string>> {
    return documents.chunkIdsInScope(this.connection, scope);
  }

  commitChunkMerge(chunkId: string, mentions: ChunkMentions, changes: GraphChanges): Promise<void> {
    return commitChunkMerges(this.connection, [{ chunkId, mentions }], changes);
  }

  commitChunkMerges(merges: ChunkMerge[], changes: GraphChanges): Promise<void> {
    return commitChunkMerges(this.connection, merges, changes);
  }

  /** Change sets arriving together (summaries run concurrently) share a transaction. */
  applyGraphChanges(changes: GraphChanges): Promise<void> {
    return this.graphChanges.submit(changes);
  }

  getEntityMentions(entityKeys: string[]): Promise<EntityMention[]> {
    return reads.getEntityMentions(this.connection, entityKeys);
  }

  getRelationshipMentions(relationshipKeys: string[]): Promise<RelationshipMention[]> {
    return reads.getRelationshipMentions(this.connection, relationshipKeys);
  }

  getChunkMentions(chunkIds: string[]): Promise<ChunkMentions> {
    return reads.getChunkMentions(this.connection, chunkIds);
  }

  /** Remembered per write generation: a query reads the same entities several times. */
  async getEntities(keys: string[]): Promise<EntityRecord[]> {
    if (keys.length === 0) return [];
    const found = await this.entityReads.get(keys);
    return keys.flatMap((key) => found.get(key) ?? []);
  }

  async getRelationships(keys: string[]): Promise<RelationshipRecord[]> {
    if (keys.length === 0) return [];
    const found = await this.relationshipReads.get(keys);
    return keys.flatMap((key) => found.get(key) ?? []);
  }

  listEntities(): Promise<EntityRecord[]> {
    return reads.listEntities(this.connection);
  }

  listRelationships(): Promise<RelationshipRecord[]> {
    return reads.listRelationships(this.connection);
  }

  /** Each entity's edges remembered per write generation: hubs recur from query to query. */
  async relationshipsOf(entityKeys: string[]): Promise<RelationshipRecord[]> {
    if (entityKeys.length === 0) return [];
    const byEntity = await this.edgeReads.get(entityKeys);
    const unique = new Map<string, RelationshipRecord>();
    for (const edges of byEntity.values()) for (const rel of edges ?? []) unique.set(rel.key, rel);
    // In key order, as relationships-touching returns them.
    return [...unique.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * From every entity's degree, read once per write generation: a query asks for the degrees of
   * hundreds of entities, hubs among them, and counting their edges each time cost more than the
   * rest of the query.
   */
  async degrees(entityKeys: string[]): Promise<Map<string, number>> {
    if (entityKeys.length === 0) return new Map();
    const all = await this.cached.get("degrees", () => reads.allDegrees(this.connection));
    return new Map(entityKeys.map((key) => [key, all.get(key) ?? 0]));
  }

  neighboursOf(frontier: string[], known: string[], limit: number): Promise<string[]> {
    return reads.neighboursOf(this.connection, frontier, known, limit);
  }

  relationshipsAmong(entityKeys: string[], limit: number): Promise<DescribedEdge[]> {
    return reads.relationshipsAmong(this.connection, entityKeys, limit);
  }

  /** The lean whole graph the steps after merging read once per run (see graph-view.ts). */
  listGraph(): Promise<GraphView> {
    return listGraph(this.connection);
  }

  entitiesNeedingSummary(): Promise<EntityRecord[]> {
    return reads.listEntities(this.connection, true);
  }

  relationshipsNeedingSummary(): Promise<RelationshipRecord[]> {
    return reads.listRelationships(this.connection, true);
  }

  async counts(): Promise<GraphCounts> {
    return { ...(await this.cached.get("counts", () => reads.counts(this.connection))) };
  }

  /**
   * Per namespace, the workspace's vectors and the Neo4j vector index that serves them; a
   * namespace without one (small enough to rank in this process) is searched exactly.
   */
  async vectorIndexStatus(): Promise<VectorIndexStatus[]> {
    const indexes = await vectorIndexStates(this.connection);
    return Promise.all(
      VECTOR_NAMESPACES.map(async (namespace): Promise<VectorIndexStatus> => {
        const { count } = await vectors.vectorStats(this.connection, namespace, Number.MAX_SAFE_INTEGER);
        const index = indexes.get(namespace);
        if (!index) return { namespace, kind: "exact", vectors: count, fresh: true };
        return {
          namespace,
          kind: "neo4j",
          vectors: count,
          fresh: index.state === "ONLINE",
          neo4jIndex: index,
        };
      }),
    );
  }

  async unfinishedDocumentCount(): Promise<number> {
    return this.cached.get("unfinishedDocuments", () => reads.unfinishedDocumentCount(this.connection));
  }

  async deleteDocuments(docIds: string[]): Promise<{ entityKeys: string[]; relationshipKeys: string[] }> {
    this.vectorDimensions.delete("chunks");
    const lost = await documents.deleteDocuments(this.connection, docIds);
    this.vectorStats.forget("chunks");
    return lost;
  }

  async upsertVectors(ns: VectorNamespace, items: VectorItem[]): Promise<void> {
    const known = this.vectorDimensions.get(ns);
    this.vectorDimensions.delete(ns);
    const dimension = await vectors.upsertVectors(this.connection, ns, items, known);
    this.vectorStats.forget(ns);
    if (dimension === undefined) return;
    this.vectorDimensions.set(ns, dimension);
    if (this.indexes.known(ns)) {
      await this.indexes.ensure(ns, dimension);
    } else if (!(await this.hashingVectorsInMemory())) {
      if (await this.vectorIndexNeed.afterWrite(ns, dimension, items.length))
        await this.indexes.ensure(ns, dimension);
    }
  }

  /**
   * Whether the workspace holds the hashing embedder's vectors and they are ranked in memory
   * whatever their number (`neo4j.hashingVectorsInMemory`), as the embedded store ranks them.
   */
  private async hashingVectorsInMemory(): Promise<boolean> {
    if (!this.connection.tuning.hashingVectorsInMemory) return false;
    return (await this.embeddingKind()) === "hashing";
  }

  /**
   * The embedding kind is recorded once per workspace and the embedding guard refuses another
   * model, so once read it is kept for the store's life: every vector write asks for it.
   */
  private async embeddingKind(): Promise<string | undefined> {
    this.knownEmbeddingKind ??= await this.cached.get("embedding-kind", () => this.getMeta("embedding.kind"));
    return this.knownEmbeddingKind;
  }

  /** Whether searches of a namespace of this size and dimension rank it in this process. */
  private async rankedInMemory(records: number, dimension: number): Promise<boolean> {
    return this.vectorsInMemory.fits(records, dimension) || (await this.hashingVectorsInMemory());
  }

  /** The larger of a namespace's records and its stored vectors (counted as far as memory takes). */
  private async namespaceSize(ns: VectorNamespace, dimension: number): Promise<number> {
    const records = (await this.counts())[ns];
    if (!this.vectorsInMemory.fits(records, dimension)) return records;
    const limit = Math.floor(this.connection.tuning.inMemoryVectorFloats / dimension) + 1;
    return Math.max(records, (await vectors.vectorStats(this.connection, ns, limit)).count);
  }

  async deleteVectors(ns: VectorNamespace, ids: string[]): Promise<void> {
    this.vectorDimensions.delete(ns);
    await vectors.deleteVectors(this.connection, ns, ids);
    this.vectorStats.forget(ns);
  }

  /** Cached while the workspace is unchanged: queries check the community reports' hashes every time. */
  async vectorHashes(ns: VectorNamespace): Promise<Map<string, string>> {
    return new Map(
      await this.cached.get(`vector-hashes:${ns}`, () => vectors.vectorHashes(this.connection, ns)),
    );
  }

  getVectors(ns: VectorNamespace, ids: string[]): Promise<VectorItem[]> {
    return vectors.getVectors(this.connection, ns, ids);
  }

  /** Exact, in this process, where the namespace fits in memory (see vector-memory.ts). */
  async searchVectors(
    ns: VectorNamespace,
    query: number[],
    topK: number,
    allow?: Set<string>,
  ): Promise<ScoredId[]> {
    const records = (await this.counts())[ns];
    if (await this.rankedInMemory(records, query.length)) {
      const { dimension } = await this.vectorStats.get(ns);
      if (dimension === query.length) return this.vectorsInMemory.search(ns, query, topK, allow);
    }
    return search.searchVectors(this.connection, this.indexes, this.vectorStats, ns, query, topK, allow);
  }

  /** Ranked like the embedded store's (see text-search.ts). */
  searchChunkText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    return this.textSearch.chunks(query, topK, allow);
  }

  searchEntityText(query: string, topK: number): Promise<ScoredId[]> {
    return search.searchEntityText(this.connection, query, topK);
  }

  /** Ranked like the embedded store's (see text-search.ts). */
  searchRelationshipText(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    return this.textSearch.relationships(query, topK, allow);
  }

  replaceCommunities(list: CommunityRecord[]): Promise<void> {
    return communities.replaceCommunities(this.connection, list);
  }

  async listCommunities(): Promise<CommunityRecord[]> {
    return [...(await this.cached.get("communities", () => communities.listCommunities(this.connection)))];
  }

  saveCommunityReport(id: string, report: CommunityRecord["report"], reportHash: string): Promise<void> {
    return communities.saveCommunityReports(this.connection, [{ id, report, reportHash }]);
  }

  saveCommunityReports(saves: ReportSave[]): Promise<void> {
    return communities.saveCommunityReports(this.connection, saves);
  }

  getLlmCache(stage: string, model: string, promptHash: string): Promise<LlmCacheEntry | undefined> {
    return data.getLlmCache(this.connection, stage, model, promptHash);
  }

  putLlmCache(entry: LlmCacheEntry): Promise<void> {
    return data.putLlmCache(this.connection, entry);
  }

  listLlmCache(): Promise<LlmCacheEntry[]> {
    return data.listLlmCache(this.connection);
  }

  listHistory(key?: string): Promise<HistoryEntry[]> {
    return data.listHistory(this.connection, key);
  }
}

/** The relationships read for these entities, listed under each endpoint that was asked for. */
function edgesByEntity(keys: string[], rels: RelationshipRecord[]): Map<string, RelationshipRecord[]> {
  const byEntity = new Map(keys.map((key) => [key, [] as RelationshipRecord[]]));
  for (const rel of rels) {
    byEntity.get(rel.sourceKey)?.push(rel);
    if (rel.targetKey !== rel.sourceKey) byEntity.get(rel.targetKey)?.push(rel);
  }
  return byEntity;
}

/** Reads through a KeyBatcher, so concurrent callers still share one statement. */
async function batchedReads<V>(batcher: KeyBatcher<V>, keys: string[]): Promise<Map<string, V>> {
  const found = new Map<string, V>();
  for (const [key, value] of await Promise.all(keys.map(async (k) => [k, await batcher.get(k)] as const))) {
    if (value !== undefined) found.set(key, value);
  }
  return found;
}
