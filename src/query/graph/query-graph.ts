import type { GraphEdge, GraphStore, WalkAdjacency } from "../../storage/graph-store.js";
import type { EntityRecord, RelationshipRecord } from "../../types.js";
import { uniqueEdges } from "./edge-union.js";
import type { ResolvedScope } from "./scope.js";
import { subjectIndex } from "./subjects.js";

/**
 * The graph as one query sees it: store reads memoised for the query's lifetime (hybrid and mix
 * walk the same neighbourhoods twice) and everything outside the scope invisible.
 */
export class QueryGraph {
  private readonly entityCache = new Map<string, EntityRecord | null>();
  private readonly relationshipCache = new Map<string, RelationshipRecord | null>();
  private readonly edgesCache = new Map<string, RelationshipRecord[]>();
  private readonly bareEdgesCache = new Map<string, GraphEdge[]>();
  private chunkTotal: number | undefined;
  private subjects: Promise<Map<string, string[]>> | undefined;
  /** Document id -> its chunk ids; shared by the queries of one data generation where the store has one. */
  private readonly documentChunks: Map<string, string[]>;
  /**
   * Entity key -> its home chunks (see subjects.ts), null for an entity no title names; shared like
   * documentChunks, but only while the whole graph is in view (a scope hides some of the chunks).
   */
  readonly homeChunkSets: Map<string, ReadonlySet<string> | null>;

  constructor(
    readonly store: GraphStore,
    readonly scope: ResolvedScope | undefined,
  ) {
    const shared = generationCaches(store);
    this.documentChunks = shared?.chunkIds ?? new Map();
    this.homeChunkSets = (scope ? undefined : shared?.homeChunks) ?? new Map();
  }

  entityAllowed(key: string): boolean {
    return !this.scope || this.scope.entityKeys.has(key);
  }

  relationshipAllowed(key: string): boolean {
    return !this.scope || this.scope.relationshipKeys.has(key);
  }

  async entities(keys: string[]): Promise<EntityRecord[]> {
    const missing = unique(keys).filter((k) => !this.entityCache.has(k) && this.entityAllowed(k));
    if (missing.length) {
      const read = this.store.cachedEntities?.bind(this.store) ?? this.store.getEntities.bind(this.store);
      const found = new Map((await read(missing)).map((e) => [e.key, e]));
      for (const k of missing) this.entityCache.set(k, found.get(k) ?? null);
    }
    return present(keys.map((k) => this.entityCache.get(k)));
  }

  async relationships(keys: string[]): Promise<RelationshipRecord[]> {
    const missing = unique(keys).filter((k) => !this.relationshipCache.has(k) && this.relationshipAllowed(k));
    if (missing.length) {
      const read =
        this.store.cachedRelationships?.bind(this.store) ?? this.store.getRelationships.bind(this.store);
      const found = new Map((await read(missing)).map((r) => [r.key, r]));
      for (const k of missing) this.relationshipCache.set(k, found.get(k) ?? null);
    }
    return present(keys.map((k) => this.relationshipCache.get(k)));
  }

  /** In-scope relationships touching any of the entities, each once. */
  relationshipsOf(entityKeys: string[]): Promise<RelationshipRecord[]> {
    return this.edgesTouching(entityKeys, this.edgesCache, async (missing) => {
      const rels = await this.store.relationshipsOf(missing);
      for (const rel of rels) if (this.relationshipAllowed(rel.key)) this.relationshipCache.set(rel.key, rel);
      return rels;
    });
  }

  /**
   * In-scope relationships touching any of the entities, each once, as bare edges: the same
   * edges in the same order as relationshipsOf, without reading their records where the store
   * can (GraphStore.edgesOf).
   */
  edgesOf(entityKeys: string[]): Promise<GraphEdge[]> {
    const readLists = this.store.edgeListsOf?.bind(this.store);
    if (readLists) return this.edgeListsTouching(entityKeys, readLists);
    const readEdges = this.store.edgesOf?.bind(this.store);
    if (!readEdges) return this.relationshipsOf(entityKeys);
    return this.edgesTouching(entityKeys, this.bareEdgesCache, readEdges);
  }

  /**
   * The store's numbered graph (GraphStore.walkAdjacency) when the whole graph is in view: a scope
   * hides edges the numbered rows still hold, so scoped queries read edges through edgesOf.
   */
  walkAdjacency(): WalkAdjacency | undefined {
    return this.scope ? undefined : this.store.walkAdjacency?.();
  }

  /** edgesTouching for a store that gives each entity's list apart: the lists are kept as they come. */
  private async edgeListsTouching(
    entityKeys: string[],
    read: (missing: string[]) => Promise<Map<string, GraphEdge[]>>,
  ): Promise<GraphEdge[]> {
    const cache = this.bareEdgesCache;
    const missing = unique(entityKeys).filter((k) => !cache.has(k));
    if (missing.length) {
      const lists = await read(missing);
      for (const k of missing) {
        const edges = lists.get(k) ?? [];
        cache.set(k, this.scope ? edges.filter((edge) => this.relationshipAllowed(edge.key)) : edges);
      }
    }
    return mergeEdgeLists(entityKeys, cache);
  }

  /**
   * The in-scope edges touching any of the entities, each once, memoised per entity: only the
   * entities not yet asked for are read, and each read fills just the requested ends (the other
   * end's list is complete only once that entity is asked for itself).
   */
  private async edgesTouching<E extends GraphEdge>(
    entityKeys: string[],
    cache: Map<string, E[]>,
    read: (missing: string[]) => Promise<E[]>,
  ): Promise<E[]> {
    const missing = unique(entityKeys).filter((k) => !cache.has(k));
    if (missing.length) {
      const requested = new Map(missing.map((k) => [k, [] as E[]]));
      for (const edge of await read(missing)) {
        if (!this.relationshipAllowed(edge.key)) continue;
        requested.get(edge.sourceKey)?.push(edge);
        if (edge.targetKey !== edge.sourceKey) requested.get(edge.targetKey)?.push(edge);
      }
      for (const [k, edges] of requested) cache.set(k, edges);
    }
    return mergeEdgeLists(entityKeys, cache);
  }

  /** Chunks in the whole workspace (the N of inverse document frequencies). */
  async chunkCount(): Promise<number> {
    this.chunkTotal ??= (await this.store.counts()).chunks;
    return this.chunkTotal;
  }

  /** Entity key -> documents whose title names it (see subjects.ts); read once per query. */
  documentSubjects(): Promise<Map<string, string[]>> {
    this.subjects ??= cachedSubjectIndex(this.store);
    return this.subjects;
  }

  /** In-scope chunk ids of one document. */
  async chunkIdsOfDocument(docId: string): Promise<string[]> {
    let ids = this.documentChunks.get(docId);
    if (!ids) {
      ids = (await this.store.listChunks(docId)).map((c) => c.id);
      this.documentChunks.set(docId, ids);
    }
    return this.chunkIdsOf({ sourceChunkIds: ids });
  }

  /** Source chunks of a record that the query may cite. */
  chunkIdsOf(record: { sourceChunkIds: string[] }): string[] {
    const scope = this.scope;
    return scope ? record.sourceChunkIds.filter((id) => scope.chunkIds.has(id)) : record.sourceChunkIds;
  }
}

/** Documents whose chunk ids are remembered between queries; cleared whole beyond it. */
const MAX_REMEMBERED_DOCUMENTS = 100_000;
/** Entities whose home chunks are remembered between queries; cleared whole beyond it. */
const MAX_REMEMBERED_HOMES = 200_000;

/** What the queries of one data generation share. */
interface GenerationCaches {
  generation: string;
  chunkIds: Map<string, string[]>;
  homeChunks: Map<string, ReadonlySet<string> | null>;
}

const generationCache = new WeakMap<GraphStore, GenerationCaches>();

/**
 * The chunk ids of each document, and so each entity's home chunks, change only with the store's
 * data: the walks' home passages read the same documents query after query, and reading a
 * document's chunks (texts included) cost a twentieth of a graph query; gathering an entity's home
 * chunks again per query (a promise per document and a set per entity) was about 1.5 % of a mix
 * query. Without a data generation (Neo4j) each query reads them afresh.
 */
function generationCaches(store: GraphStore): GenerationCaches | undefined {
  const generation = store.dataGeneration?.();
  if (generation === undefined) return undefined;
  let cached = generationCache.get(store);
  if (
    cached?.generation !== generation ||
    cached.chunkIds.size >= MAX_REMEMBERED_DOCUMENTS ||
    cached.homeChunks.size >= MAX_REMEMBERED_HOMES
  ) {
    cached = { generation, chunkIds: new Map(), homeChunks: new Map() };
    generationCache.set(store, cached);
  }
  return cached;
}

const subjectCache = new WeakMap<
  GraphStore,
  { generation: string | undefined; signature: string; index: Map<string, string[]> }
>();

/**
 * Titles change only with documents: the index is rebuilt when their ids or titles change, not per
 * query. Where the store tells its data generation, an unchanged store is not even listed again.
 */
async function cachedSubjectIndex(store: GraphStore): Promise<Map<string, string[]>> {
  // The titles' own version, where the store keeps one: an index run commits every few hundred
  // milliseconds, and listing 100,000 documents after each commit took seconds.
  const generation = store.documentTitlesVersion?.() ?? store.dataGeneration?.();
  const cached = subjectCache.get(store);
  if (generation !== undefined && cached?.generation === generation) return cached.index;
  const docs = store.listDocumentTitles ? await store.listDocumentTitles() : await store.listDocuments();
  const signature = docs.map((d) => `${d.id}\u0000${d.title}`).join("\u0001");
  const index = cached?.signature === signature ? cached.index : subjectIndex(docs);
  subjectCache.set(store, { generation, signature, index });
  return index;
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)];
}

function present<T>(items: (T | null | undefined)[]): T[] {
  return items.filter((x): x is T => x !== null && x !== undefined);
}

/** The entities' edges, each once, in the order of the entities and then of their lists. */
function mergeEdgeLists<E extends GraphEdge>(entityKeys: string[], cache: Map<string, E[]>): E[] {
  return uniqueEdges(entityKeys.map((k) => cache.get(k) ?? []));
}
