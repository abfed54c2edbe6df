import type { GraphEntity, GraphRelationship, GraphView } from "../storage/graph-store.js";

const indexes = new WeakMap<GraphView, GraphIndex>();

/** The index of a graph view, built once however many steps of a run ask for it. */
export function graphIndexOf(view: GraphView): GraphIndex {
  let index = indexes.get(view);
  if (!index) {
    index = new GraphIndex(view.entities, view.relationships);
    indexes.set(view, index);
  }
  return index;
}

/**
 * In-memory lookups over the whole graph for community work: members' records, internal
 * relationships and degrees, computed once per run instead of one store query per community.
 */
export class GraphIndex {
  private readonly entities = new Map<string, GraphEntity>();
  private readonly adjacency = new Map<string, GraphRelationship[]>();

  constructor(entities: readonly GraphEntity[], relationships: readonly GraphRelationship[]) {
    for (const entity of entities) this.entities.set(entity.key, entity);
    for (const rel of relationships) {
      if (rel.sourceKey === rel.targetKey) continue;
      this.link(rel.sourceKey, rel);
      this.link(rel.targetKey, rel);
    }
  }

  entity(key: string): GraphEntity | undefined {
    return this.entities.get(key);
  }

  /** Number of relationships of the entity in the whole graph (self-loops excluded). */
  degree(key: string): number {
    return this.adjacency.get(key)?.length ?? 0;
  }

  /** Relationships with both endpoints among the members, each once, sorted by key. */
  internalRelationships(memberKeys: readonly string[]): GraphRelationship[] {
    const members = new Set(memberKeys);
    const found = new Map<string, GraphRelationship>();
    for (const key of memberKeys) {
      for (const rel of this.adjacency.get(key) ?? []) {
        if (members.has(rel.sourceKey) && members.has(rel.targetKey)) found.set(rel.key, rel);
      }
    }
    return [...found.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private link(key: string, rel: GraphRelationship): void {
    const list = this.adjacency.get(key);
    if (list) list.push(rel);
    else this.adjacency.set(key, [rel]);
  }
}
