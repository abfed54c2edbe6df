import type { GraphStore } from "../storage/graph-store.js";
import type { ChunkState, EntityMention, GraphChanges, RelationshipMention } from "../types.js";
import { VECTOR_NAMESPACES } from "../types.js";
import { type ProgressReporter, silentProgress } from "../util/progress.js";

/** Records per write call: keeps each target transaction a manageable size. */
const BATCH = 2000;
/** Chunks whose mentions one copy transaction stores: a few thousand mention rows at most. */
const CHUNKS_PER_COPY_TRANSACTION = 200;

export interface CopyReport {
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  communities: number;
  history: number;
  vectors: number;
  llmCache: number;
  meta: number;
  /** Parts the source store cannot list, with what that means for the copy. */
  notCopied: string[];
}

const NO_CHANGES: GraphChanges = {
  upsertEntities: [],
  upsertRelationships: [],
  deleteEntityKeys: [],
  deleteRelationshipKeys: [],
  history: [],
};

/**
 * Copies a whole workspace from one store to another through the GraphStore interface only:
 * documents, chunks with their state, mentions (the cached extractions), entities, relationships,
 * history, communities with reports, vectors, LLM cache and metadata. Nothing is extracted or
 * embedded again. The target must be empty, so nothing stored there is overwritten.
 */
export async function copyStore(
  from: GraphStore,
  to: GraphStore,
  progress: ProgressReporter = silentProgress,
): Promise<CopyReport> {
  const existing = await to.counts();
  if (existing.documents > 0 || existing.entities > 0) {
    throw new Error(
      `The target workspace already holds ${existing.documents} documents and ${existing.entities} entities; ` +
        "copy into an empty workspace (another --workspace name) so nothing there is overwritten.",
    );
  }
  const notCopied: string[] = [];
  const meta = await copyMeta(from, to, notCopied);
  const { documents, chunks } = await copyDocumentsAndChunks(from, to, progress);
  const entities = await from.listEntities();
  const relationships = await from.listRelationships();
  for (let i = 0; i < Math.max(entities.length, relationships.length); i += BATCH) {
    await to.applyGraphChanges({
      ...NO_CHANGES,
      upsertEntities: entities.slice(i, i + BATCH),
      upsertRelationships: relationships.slice(i, i + BATCH),
    });
  }
  const history = await from.listHistory();
  for (let i = 0; i < history.length; i += BATCH) {
    await to.applyGraphChanges({ ...NO_CHANGES, history: history.slice(i, i + BATCH) });
  }
  const communities = await from.listCommunities();
  await to.replaceCommunities(communities);
  const vectors = await copyVectors(from, to, progress, notCopied);
  const llmCache = await copyLlmCache(from, to, notCopied);
  return {
    documents,
    chunks,
    entities: entities.length,
    relationships: relationships.length,
    communities: communities.length,
    history: history.length,
    vectors,
    llmCache,
    meta,
    notCopied,
  };
}

async function copyMeta(from: GraphStore, to: GraphStore, notCopied: string[]): Promise<number> {
  if (!from.listMeta) {
    notCopied.push(
      "workspace metadata (embedding model and pipeline flags; the model is recorded again on the next open)",
    );
    return 0;
  }
  const entries = Object.entries(await from.listMeta());
  for (const [key, value] of entries) await to.setMeta(key, value);
  return entries.length;
}

/** Documents, their chunks, and each chunk's state and mentions, in the order they were merged. */
async function copyDocumentsAndChunks(
  from: GraphStore,
  to: GraphStore,
  progress: ProgressReporter,
): Promise<{ documents: number; chunks: number }> {
  const documents = await from.listDocuments();
  progress.start("copy documents", documents.length);
  let chunkCount = 0;
  for (const doc of documents) {
    await to.upsertDocument(doc);
    const chunks = await from.listChunks(doc.id);
    await to.replaceDocumentChunks(doc.id, chunks);
    await to.upsertDocument(doc); // the record exactly as it was, chunk count and timestamps included
    chunkCount += chunks.length;
    progress.advance("copy documents");
  }
  progress.finish("copy documents");
  const states = await from.getChunkStates();
  const mentions = await from.getChunkMentions(states.map((s) => s.chunkId));
  const entitiesOf = byChunk(mentions.entities);
  const relationshipsOf = byChunk(mentions.relationships);
  // Several chunks per transaction (one round trip each would make a large copy crawl), in merge
  // order; a failed chunk's mark waits for its own mentions to be committed.
  let pending: Parameters<GraphStore["commitChunkMerges"]>[0] = [];
  const flush = async () => {
    if (pending.length > 0) await to.commitChunkMerges(pending, NO_CHANGES);
    pending = [];
  };
  for (const state of mergeOrder(states, mentions.entities, mentions.relationships)) {
    const own = {
      entities: entitiesOf.get(state.chunkId) ?? [],
      relationships: relationshipsOf.get(state.chunkId) ?? [],
    };
    const partial =
      state.status === "partial" ? { error: state.error ?? "", rawOutput: state.rawOutput ?? "" } : undefined;
    if (partial || state.status === "merged" || own.entities.length > 0 || own.relationships.length > 0) {
      pending.push({ chunkId: state.chunkId, mentions: own, ...(partial ? { partial } : {}) });
      if (pending.length >= CHUNKS_PER_COPY_TRANSACTION) await flush();
    }
    if (state.status === "failed") {
      await flush();
      await to.markChunkFailed(state.chunkId, state.error ?? "", state.rawOutput);
    }
  }
  await flush();
  return { documents: documents.length, chunks: chunkCount };
}

function byChunk<T extends { chunkId: string }>(mentions: T[]): Map<string, T[]> {
  const of = new Map<string, T[]>();
  for (const mention of mentions) {
    const list = of.get(mention.chunkId);
    if (list) list.push(mention);
    else of.set(mention.chunkId, [mention]);
  }
  return of;
}

/** Chunks in the order their mentions were stored, so mention order (and folds) stay the same. */
function mergeOrder(
  states: ChunkState[],
  entityMentions: EntityMention[],
  relationshipMentions: RelationshipMention[],
): ChunkState[] {
  const first = new Map<string, number>();
  [...entityMentions, ...relationshipMentions].forEach((m, i) => {
    if (!first.has(m.chunkId)) first.set(m.chunkId, i);
  });
  const rank = (s: ChunkState) => first.get(s.chunkId) ?? Number.MAX_SAFE_INTEGER;
  return [...states].sort((a, b) => rank(a) - rank(b));
}

async function copyVectors(
  from: GraphStore,
  to: GraphStore,
  progress: ProgressReporter,
  notCopied: string[],
): Promise<number> {
  if (!from.getVectors) {
    notCopied.push("vectors (the next `kgrag index` embeds them again)");
    return 0;
  }
  let copied = 0;
  for (const ns of VECTOR_NAMESPACES) {
    const ids = [...(await from.vectorHashes(ns)).keys()];
    progress.start(`copy ${ns} vectors`, ids.length);
    for (let i = 0; i < ids.length; i += BATCH) {
      const items = await from.getVectors(ns, ids.slice(i, i + BATCH));
      await to.upsertVectors(ns, items);
      copied += items.length;
      progress.advance(`copy ${ns} vectors`, items.length);
    }
    progress.finish(`copy ${ns} vectors`);
  }
  return copied;
}

async function copyLlmCache(from: GraphStore, to: GraphStore, notCopied: string[]): Promise<number> {
  if (!from.listLlmCache) {
    notCopied.push("LLM cache (later runs call the model again where they would have hit the cache)");
    return 0;
  }
  const entries = await from.listLlmCache();
  for (const entry of entries) await to.putLlmCache(entry);
  return entries.length;
}
