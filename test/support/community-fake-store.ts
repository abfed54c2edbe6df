import { ConfigSchema, type KgragConfigInput } from "../../src/config.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import type { ChatModel } from "../../src/llm/chat-model.js";
import { UsageTracker } from "../../src/llm/usage.js";
import { relationshipKey } from "../../src/merge/keys.js";
import type { KgragServices } from "../../src/services.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import type {
  CommunityRecord,
  EntityRecord,
  RelationshipRecord,
  ScoredId,
  VectorItem,
  VectorNamespace,
} from "../../src/types.js";
import { silentProgress } from "../../src/util/progress.js";
import { nodesOf } from "./community-graphs.js";

const copy = <T>(value: T): T => structuredClone(value);

function unused(name: string) {
  return async (): Promise<never> => {
    throw new Error(`GraphStore.${name} is not used by the community code`);
  };
}

/**
 * An in-memory GraphStore with what communities, reports and global search use (graph reads,
 * communities, vectors, metadata); every other method throws, so an unexpected dependency shows up at once.
 * It also counts report saves, which the incremental-reuse tests assert on.
 */
export class CommunityFakeStore implements GraphStore {
  readonly kind = "sqlite" as const;
  readonly entities = new Map<string, EntityRecord>();
  readonly relationships = new Map<string, RelationshipRecord>();
  communities: CommunityRecord[] = [];
  readonly vectors = new Map<VectorNamespace, Map<string, VectorItem>>();
  savedReports: string[] = [];
  /** Workspace metadata (the retired community ids' aliases live there). */
  readonly meta = new Map<string, string>();

  async close() {}
  async listEntities() {
    return [...this.entities.values()].map(copy);
  }
  async listRelationships() {
    return [...this.relationships.values()].map(copy);
  }
  async replaceCommunities(communities: CommunityRecord[]) {
    this.communities = copy(communities);
  }
  async listCommunities() {
    return copy(this.communities);
  }
  async saveCommunityReport(id: string, report: CommunityRecord["report"], reportHash: string) {
    const community = this.communities.find((c) => c.id === id);
    if (!community) throw new Error(`no community ${id}`);
    community.report = copy(report);
    community.reportHash = reportHash;
    this.savedReports.push(id);
  }
  async saveCommunityReports(saves: { id: string; report: CommunityRecord["report"]; reportHash: string }[]) {
    for (const save of saves) await this.saveCommunityReport(save.id, save.report, save.reportHash);
  }
  async upsertVectors(ns: VectorNamespace, items: VectorItem[]) {
    const space = this.vectors.get(ns) ?? new Map<string, VectorItem>();
    for (const item of items) space.set(item.id, copy(item));
    this.vectors.set(ns, space);
  }
  async deleteVectors(ns: VectorNamespace, ids: string[]) {
    for (const id of ids) this.vectors.get(ns)?.delete(id);
  }
  async vectorHashes(ns: VectorNamespace) {
    return new Map([...(this.vectors.get(ns)?.values() ?? [])].map((v) => [v.id, v.textHash]));
  }
  async searchVectors(
    ns: VectorNamespace,
    query: number[],
    topK: number,
    allow?: Set<string>,
  ): Promise<ScoredId[]> {
    return [...(this.vectors.get(ns)?.values() ?? [])]
      .filter((v) => !allow || allow.has(v.id))
      .map((v) => ({ id: v.id, score: cosine(query, v.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
  }

  async getMeta(key: string) {
    return this.meta.get(key);
  }
  async setMeta(key: string, value: string) {
    this.meta.set(key, value);
  }
  upsertDocument = unused("upsertDocument");
  upsertDocuments = unused("upsertDocuments");
  getDocument = unused("getDocument");
  listDocuments = unused("listDocuments");
  setDocumentStatus = unused("setDocumentStatus");
  replaceDocumentChunks = unused("replaceDocumentChunks");
  setDocumentStatuses = unused("setDocumentStatuses");
  registerDocuments = unused("registerDocuments");
  getChunks = unused("getChunks");
  listChunks = unused("listChunks");
  getChunkStates = unused("getChunkStates");
  markChunkFailed = unused("markChunkFailed");
  chunkIdsInScope = unused("chunkIdsInScope");
  commitChunkMerge = unused("commitChunkMerge");
  commitChunkMerges = unused("commitChunkMerges");
  applyGraphChanges = unused("applyGraphChanges");
  getEntityMentions = unused("getEntityMentions");
  getRelationshipMentions = unused("getRelationshipMentions");
  getChunkMentions = unused("getChunkMentions");
  getEntities = unused("getEntities");
  getRelationships = unused("getRelationships");
  relationshipsOf = unused("relationshipsOf");
  degrees = unused("degrees");
  neighboursOf = unused("neighboursOf");
  relationshipsAmong = unused("relationshipsAmong");
  entitiesNeedingSummary = unused("entitiesNeedingSummary");
  relationshipsNeedingSummary = unused("relationshipsNeedingSummary");
  counts = unused("counts");
  unfinishedDocumentCount = unused("unfinishedDocumentCount");
  deleteDocuments = unused("deleteDocuments");
  searchChunkText = unused("searchChunkText");
  searchEntityText = unused("searchEntityText");
  searchRelationshipText = unused("searchRelationshipText");
  getLlmCache = unused("getLlmCache");
  putLlmCache = unused("putLlmCache");
  listHistory = unused("listHistory");
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Services around the fake store: hashing embedder, silent progress, the given chat model or none. */
export function communityServices(
  store: CommunityFakeStore,
  chat: ChatModel | null = null,
  config: KgragConfigInput = {},
): KgragServices {
  return {
    config: ConfigSchema.parse(config),
    store,
    embedder: new HashingEmbedder(64),
    chat,
    usage: new UsageTracker(),
    progress: silentProgress,
  };
}

/** Graph fixture helpers: records with just enough fields for community work. */
export function entity(key: string, description = `${key} is an entity.`): EntityRecord {
  return {
    key,
    name: key.toUpperCase(),
    type: "concept",
    description,
    fragments: [description],
    sourceChunkIds: ["chunk-1"],
    fragmentsHash: key,
    needsSummary: false,
  };
}

export function relationship(
  a: string,
  b: string,
  weight = 1,
  description = `${a} relates to ${b}.`,
): RelationshipRecord {
  const [sourceKey, targetKey] = a <= b ? [a, b] : [b, a];
  return {
    key: relationshipKey(sourceKey, targetKey),
    sourceKey,
    targetKey,
    description,
    fragments: [description],
    keywords: [],
    weight,
    sourceChunkIds: ["chunk-1"],
    fragmentsHash: `${sourceKey}-${targetKey}`,
    needsSummary: false,
  };
}

/** Fills the store with the given graph (entities for every endpoint are created as needed). */
export function loadGraph(
  store: CommunityFakeStore,
  edges: [string, string, number?][],
  extraNodes: string[] = [],
) {
  for (const key of [...extraNodes, ...nodesOf(edges)]) {
    if (!store.entities.has(key)) store.entities.set(key, entity(key));
  }
  for (const [a, b, w] of edges) {
    const rel = relationship(a, b, w ?? 1);
    store.relationships.set(rel.key, rel);
  }
}
