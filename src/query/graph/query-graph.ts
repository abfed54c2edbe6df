import type { GraphStore } from "../../storage/graph-store.js";
import type { DocumentRecord, EntityRecord, RelationshipRecord } from "../../types.js";
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
  private chunkTotal: number | undefined;
  private subjects: Promise<Map<string, string[]>> | undefined;
  private readonly documentChunks = new Map<string, string[]>();

  constructor(
    readonly store: GraphStore,
    readonly scope: ResolvedScope | undefined,
  ) {}

  entityAllowed(key: string): boolean {
    return !this.scope || this.scope.entityKeys.has(key);
  }

  relationshipAllowed(key: string): boolean {
    return !this.scope || this.scope.relationshipKeys.has(key);
  }

  async entities(keys: string[]): Promise<EntityRecord[]> {
    const missing = unique(keys).filter((k) => !this.entityCache.has(k) && this.entityAllowed(k));
    if (missing.length) {
      const found = new Map((await this.store.getEntities(missing)).map((e) => [e.key, e]));
      for (const k of missing) this.entityCache.set(k, found.get(k) ?? null);
    }
    return present(keys.map((k) => this.entityCache.get(k)));
  }

  async relationships(keys: string[]): Promise<RelationshipRecord[]> {
    const missing = unique(keys).filter((k) => !this.relationshipCache.has(k) && this.relationshipAllowed(k));
    if (missing.length) {
      const found = new Map((await this.store.getRelationships(missing)).map((r) => [r.key, r]));
      for (const k of missing) this.relationshipCache.set(k, found.get(k) ?? null);
    }
    return present(keys.map((k) => this.relationshipCache.get(k)));
  }

  /** In-scope relationships touching any of the entities, each once. */
  async relationshipsOf(entityKeys: string[]): Promise<RelationshipRecord[]> {
    const missing = unique(entityKeys).filter((k) => !this.edgesCache.has(k));
    if (missing.length) {
      const requested = new Map(missing.map((k) => [k, [] as RelationshipRecord[]]));
      for (const rel of await this.store.relationshipsOf(missing)) {
        if (!this.relationshipAllowed(rel.key)) continue;
        this.relationshipCache.set(rel.key, rel);
        // Only the requested ends are filled: the other end's list is complete only once asked for.
        requested.get(rel.sourceKey)?.push(rel);
        if (rel.targetKey !== rel.sourceKey) requested.get(rel.targetKey)?.push(rel);
      }
      for (const [k, rels] of requested) this.edgesCache.set(k, rels);
    }
    const out = new Map<string, RelationshipRecord>();
    for (const k of entityKeys) for (const rel of this.edgesCache.get(k) ?? []) out.set(rel.key, rel);
    return [...out.values()];
  }

  /** Chunks in the whole workspace (the N of inverse document frequencies). */
  async chunkCount(): Promise<number> {
    this.chunkTotal ??= (await this.store.counts()).chunks;
    return this.chunkTotal;
  }

  /** Entity key -> documents whose title names it (see subjects.ts); read once per query. */
  documentSubjects(): Promise<Map<string, string[]>> {
    this.subjects ??= this.store.listDocuments().then((docs) => cachedSubjectIndex(this.store, docs));
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

const subjectCache = new WeakMap<GraphStore, { signature: string; index: Map<string, string[]> }>();

/** Titles change only with documents: the index is rebuilt when their ids or titles change, not per query. */
function cachedSubjectIndex(store: GraphStore, docs: DocumentRecord[]): Map<string, string[]> {
  const signature = docs.map((d) => `${d.id}\u0000${d.title}`).join("\u0001");
  const cached = subjectCache.get(store);
  if (cached?.signature === signature) return cached.index;
  const index = subjectIndex(docs);
  subjectCache.set(store, { signature, index });
  return index;
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)];
}

function present<T>(items: (T | null | undefined)[]): T[] {
  return items.filter((x): x is T => x !== null && x !== undefined);
}
