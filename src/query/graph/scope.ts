import type { GraphStore } from "../../storage/graph-store.js";
import type { Scope } from "../../types.js";

/**
 * A scope resolved to the ids every retrieval step may consider. An entity or relationship is in
 * scope only when at least one of its source chunks is, so graph expansion cannot carry the
 * answer out of the documents the user chose.
 */
export interface ResolvedScope {
  chunkIds: Set<string>;
  entityKeys: Set<string>;
  relationshipKeys: Set<string>;
}

/** undefined means "everything": no filter is built, so unscoped queries pay nothing for it. */
export async function resolveScope(
  store: GraphStore,
  scope: Scope | undefined,
): Promise<ResolvedScope | undefined> {
  if (!scope) return undefined;
  const chunkIds = await store.chunkIdsInScope(scope);
  const mentions =
    chunkIds.size > 0 ? await store.getChunkMentions([...chunkIds]) : { entities: [], relationships: [] };
  return {
    chunkIds,
    entityKeys: new Set(mentions.entities.map((m) => m.entityKey)),
    relationshipKeys: new Set(mentions.relationships.map((m) => m.relationshipKey)),
  };
}
