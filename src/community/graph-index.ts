import type { EntityRecord, RelationshipRecord } from "../types.js";

/**
 * In-memory lookups over the whole graph for community work: members' records, internal
 * relationships and degrees, computed once per run instead of one store query per community.
 */
export class GraphIndex {
  private readonly entities = new Map<string, EntityRecord>();
  private readonly adjacency = new Map<string, RelationshipRecord[]>();

  constructor(entities: readonly EntityRecord[], relationships: readonly RelationshipRecord[]) {
    for (const entity of entities) this.entities.set(entity.key, entity);
    for (const rel of relationships) {
      if (rel.sourceKey === rel.targetKey) continue;
      this.link(rel.sourceKey, rel);
      this.link(rel.targetKey, rel);
    }
  }

  entity(key: string): EntityRecord | undefined {
    return this.entities.get(key);
  }

  /** Number of relationships of the entity in the whole graph (self-loops excluded). */
  degree(key: string): number {
    return this.adjacency.get(key)?.length ?? 0;
  }

  /** Relationships with both endpoints among the members, each once, sorted by key. */
  internalRelationships(memberKeys: readonly string[]): RelationshipRecord[] {
    const members = new Set(memberKeys);
    const found = new Map<string, RelationshipRecord>();
    for (const key of memberKeys) {
      for (const rel of this.adjacency.get(key) ?? []) {
        if (members.has(rel.sourceKey) && members.has(rel.targetKey)) found.set(rel.key, rel);
      }
    }
    return [...found.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private link(key: string, rel: RelationshipRecord): void {
    const list = this.adjacency.get(key);
    if (list) list.push(rel);
    else this.adjacency.set(key, [rel]);
  }
}
