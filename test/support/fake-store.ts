import type { GraphStore } from "../../src/storage/graph-store.js";
import type {
  EntityMention,
  EntityRecord,
  GraphChanges,
  HistoryEntry,
  RelationshipMention,
  RelationshipRecord,
} from "../../src/types.js";

type MergeStoreMethods =
  | "getEntities"
  | "getRelationships"
  | "getEntityMentions"
  | "getRelationshipMentions"
  | "getChunkMentions"
  | "commitChunkMerge"
  | "applyGraphChanges"
  | "entitiesNeedingSummary"
  | "relationshipsNeedingSummary";

const copy = <T>(value: T): T => structuredClone(value);

/**
 * An in-memory stand-in for the GraphStore methods the merge rules use, so they are tested
 * without any real adapter. Records are copied in and out, as a database would.
 */
export class FakeMergeStore implements Pick<GraphStore, MergeStoreMethods> {
  readonly entities = new Map<string, EntityRecord>();
  readonly relationships = new Map<string, RelationshipRecord>();
  entityMentions: EntityMention[] = [];
  relationshipMentions: RelationshipMention[] = [];
  readonly history: HistoryEntry[] = [];

  async getEntities(keys: string[]) {
    return keys.flatMap((key) => (this.entities.has(key) ? [copy(this.entities.get(key)!)] : []));
  }

  async getRelationships(keys: string[]) {
    return keys.flatMap((key) => (this.relationships.has(key) ? [copy(this.relationships.get(key)!)] : []));
  }

  async getEntityMentions(keys: string[]) {
    return copy(this.entityMentions.filter((m) => keys.includes(m.entityKey)));
  }

  async getRelationshipMentions(keys: string[]) {
    return copy(this.relationshipMentions.filter((m) => keys.includes(m.relationshipKey)));
  }

  async getChunkMentions(chunkIds: string[]) {
    return {
      entities: copy(this.entityMentions.filter((m) => chunkIds.includes(m.chunkId))),
      relationships: copy(this.relationshipMentions.filter((m) => chunkIds.includes(m.chunkId))),
    };
  }

  async commitChunkMerge(
    chunkId: string,
    mentions: { entities: EntityMention[]; relationships: RelationshipMention[] },
    changes: GraphChanges,
  ) {
    this.entityMentions = [
      ...this.entityMentions.filter((m) => m.chunkId !== chunkId),
      ...copy(mentions.entities),
    ];
    this.relationshipMentions = [
      ...this.relationshipMentions.filter((m) => m.chunkId !== chunkId),
      ...copy(mentions.relationships),
    ];
    await this.applyGraphChanges(changes);
  }

  async applyGraphChanges(changes: GraphChanges) {
    for (const entity of changes.upsertEntities) this.entities.set(entity.key, copy(entity));
    for (const relationship of changes.upsertRelationships)
      this.relationships.set(relationship.key, copy(relationship));
    for (const key of changes.deleteEntityKeys) this.entities.delete(key);
    for (const key of changes.deleteRelationshipKeys) this.relationships.delete(key);
    this.history.push(...copy(changes.history));
  }

  async entitiesNeedingSummary() {
    return [...this.entities.values()].filter((e) => e.needsSummary).map(copy);
  }

  async relationshipsNeedingSummary() {
    return [...this.relationships.values()].filter((r) => r.needsSummary).map(copy);
  }

  /** Like deleteDocuments: drops the chunks' mentions and returns the keys that lost some. */
  deleteChunkMentions(chunkIds: string[]): { entityKeys: string[]; relationshipKeys: string[] } {
    const gone = (m: { chunkId: string }) => chunkIds.includes(m.chunkId);
    const entityKeys = [...new Set(this.entityMentions.filter(gone).map((m) => m.entityKey))];
    const relationshipKeys = [
      ...new Set(this.relationshipMentions.filter(gone).map((m) => m.relationshipKey)),
    ];
    this.entityMentions = this.entityMentions.filter((m) => !gone(m));
    this.relationshipMentions = this.relationshipMentions.filter((m) => !gone(m));
    return { entityKeys, relationshipKeys };
  }

  /** The graph as plain sorted data, to compare two stores. */
  snapshot() {
    const byKey = <T extends { key: string }>(records: Iterable<T>) =>
      [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { entities: byKey(this.entities.values()), relationships: byKey(this.relationships.values()) };
  }
}
