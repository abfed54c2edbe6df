import type { KgragConfig } from "../config.js";
import { type MergeReadStore, planRebuild } from "../merge/plan.js";
import { chunkIdsOf, keysMentionedIn } from "../pipeline/delete-documents.js";
import { loadResolution } from "../resolve/apply-rules.js";
import type { GraphStore, GraphView } from "../storage/graph-store.js";
import type { GraphChanges } from "../types.js";

/**
 * The graph once the old versions of `docIds` are removed, as an update removes a changed
 * document before extracting it again (removeDocuments): the keys its chunks mention re-folded
 * from the mentions other chunks hold (planRebuild, read only), so records only it supported are
 * gone and the ones it shared lose its fragments. Nothing is written.
 */
export async function withoutOldVersions(
  store: GraphStore,
  config: KgragConfig,
  view: GraphView,
  docIds: string[],
): Promise<GraphView> {
  if (docIds.length === 0) return view;
  const chunkIds = new Set(await chunkIdsOf(store, docIds));
  const keys = await keysMentionedIn(store, [...chunkIds]);
  const changes = await planRebuild(
    withoutChunks(store, chunkIds),
    keys.entityKeys,
    keys.relationshipKeys,
    "update document",
    { ...config.merge, resolution: await loadResolution(store) },
  );
  return applied(view, changes);
}

/** The store's merge reads as if the chunks were deleted: their mentions left out. */
function withoutChunks(store: MergeReadStore, chunkIds: ReadonlySet<string>): MergeReadStore {
  const kept = <T extends { chunkId: string }>(mentions: T[]) =>
    mentions.filter((m) => !chunkIds.has(m.chunkId));
  return {
    getEntities: (keys) => store.getEntities(keys),
    getRelationships: (keys) => store.getRelationships(keys),
    getEntityMentions: async (keys) => kept(await store.getEntityMentions(keys)),
    getRelationshipMentions: async (keys) => kept(await store.getRelationshipMentions(keys)),
    getChunkMentions: async (ids) => {
      const mentions = await store.getChunkMentions(ids.filter((id) => !chunkIds.has(id)));
      return { entities: kept(mentions.entities), relationships: kept(mentions.relationships) };
    },
  };
}

/** The view with a plan's upserts and deletes applied, records in their stored order. */
function applied(view: GraphView, changes: GraphChanges): GraphView {
  return {
    entities: changedRecords(view.entities, changes.upsertEntities, changes.deleteEntityKeys),
    relationships: changedRecords(
      view.relationships,
      changes.upsertRelationships,
      changes.deleteRelationshipKeys,
    ),
  };
}

function changedRecords<T extends { key: string }>(
  records: readonly T[],
  upserts: readonly T[],
  deletes: readonly string[],
): T[] {
  const byKey = new Map(records.map((record) => [record.key, record]));
  for (const key of deletes) byKey.delete(key);
  for (const record of upserts) byKey.set(record.key, record);
  return [...byKey.values()];
}
