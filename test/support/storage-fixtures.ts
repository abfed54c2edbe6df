import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import type {
  ChunkRecord,
  DocumentRecord,
  EntityMention,
  EntityRecord,
  GraphChanges,
  HistoryEntry,
  Metadata,
  RelationshipMention,
  RelationshipRecord,
} from "../../src/types.js";
import { hashText } from "../../src/util/hash.js";

/** Gives a contract test the fresh store of the current test. */
export type StoreOf = () => GraphStore;

/** Small record factories for storage tests: valid records with just the fields a test cares about. */

const AT = "2024-01-01T00:00:00.000Z";

export function makeDocument(id: string, overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id,
    title: `Title of ${id}`,
    path: null,
    contentHash: hashText(id),
    status: "pending",
    error: null,
    metadata: {},
    chunkCount: 0,
    createdAt: AT,
    updatedAt: AT,
    ...overrides,
  };
}

export function makeChunk(docId: string, index: number, text: string): ChunkRecord {
  return {
    id: `${docId}:${hashText(text, 12)}`,
    docId,
    index,
    text,
    tokens: text.split(/\s+/).length,
    start: index * 100,
    end: index * 100 + text.length,
  };
}

/** Stores a document and its chunks, one chunk per text. */
export async function seedDocument(
  store: GraphStore,
  docId: string,
  texts: string[],
  metadata: Metadata = {},
): Promise<ChunkRecord[]> {
  const chunks = texts.map((text, index) => makeChunk(docId, index, text));
  await store.upsertDocument(makeDocument(docId, { metadata, chunkCount: chunks.length }));
  await store.replaceDocumentChunks(docId, chunks);
  return chunks;
}

export function makeEntity(name: string, overrides: Partial<EntityRecord> = {}): EntityRecord {
  const description = overrides.description ?? `${name} is a test entity.`;
  return {
    key: entityKey(name),
    name,
    type: "organization",
    description,
    fragments: [description],
    sourceChunkIds: [],
    fragmentsHash: hashText(description),
    needsSummary: false,
    ...overrides,
  };
}

export function makeRelationship(
  a: string,
  b: string,
  overrides: Partial<RelationshipRecord> = {},
): RelationshipRecord {
  const [sourceKey, targetKey] = [entityKey(a), entityKey(b)].sort() as [string, string];
  const description = overrides.description ?? `${a} relates to ${b}.`;
  return {
    key: relationshipKey(sourceKey, targetKey),
    sourceKey,
    targetKey,
    description,
    fragments: [description],
    keywords: ["related"],
    weight: 1,
    sourceChunkIds: [],
    fragmentsHash: hashText(description),
    needsSummary: false,
    ...overrides,
  };
}

export function entityMention(name: string, chunkId: string): EntityMention {
  return {
    entityKey: entityKey(name),
    chunkId,
    name,
    type: "organization",
    description: `${name} in ${chunkId}`,
  };
}

export function relationshipMention(a: string, b: string, chunkId: string): RelationshipMention {
  const [sourceKey, targetKey] = [entityKey(a), entityKey(b)].sort() as [string, string];
  return {
    relationshipKey: relationshipKey(sourceKey, targetKey),
    sourceKey,
    targetKey,
    chunkId,
    description: `${a} and ${b} in ${chunkId}`,
    keywords: ["related"],
    strength: 5,
  };
}

export function historyEntry(
  key: string,
  cause: string,
  overrides: Partial<HistoryEntry> = {},
): HistoryEntry {
  return {
    kind: "entity",
    key,
    action: "create",
    oldDescription: null,
    newDescription: `description of ${key}`,
    cause,
    at: AT,
    ...overrides,
  };
}

export function changes(overrides: Partial<GraphChanges> = {}): GraphChanges {
  return {
    upsertEntities: [],
    upsertRelationships: [],
    deleteEntityKeys: [],
    deleteRelationshipKeys: [],
    history: [],
    ...overrides,
  };
}

/**
 * Merges one chunk the simple way: each named entity and pair becomes a mention and a record whose
 * only source is this chunk. Enough for storage tests; real folding lives in src/merge.
 */
export async function mergeChunk(
  store: GraphStore,
  chunkId: string,
  names: string[],
  pairs: [string, string][] = [],
): Promise<void> {
  await store.commitChunkMerge(
    chunkId,
    {
      entities: names.map((name) => entityMention(name, chunkId)),
      relationships: pairs.map(([a, b]) => relationshipMention(a, b, chunkId)),
    },
    changes({
      upsertEntities: names.map((name) => makeEntity(name, { sourceChunkIds: [chunkId] })),
      upsertRelationships: pairs.map(([a, b]) => makeRelationship(a, b, { sourceChunkIds: [chunkId] })),
      history: names.map((name) => historyEntry(entityKey(name), `merge chunk ${chunkId}`)),
    }),
  );
}

export function sortedIds(items: { id: string }[]): string[] {
  return items.map((item) => item.id).sort();
}
