import { planRebuild } from "../merge/plan.js";
import { loadResolution } from "../resolve/apply-rules.js";
import { resolveMentions } from "../resolve/resolved-reads.js";
import type { KgragServices } from "../services.js";
import { markCommunitiesStale } from "./community-freshness.js";

/** Meta key holding a rebuild that was planned but may not have been applied (see removeDocuments). */
const PENDING_REBUILD = "pending-rebuild";

interface PendingRebuild {
  cause: string;
  entityKeys: string[];
  relationshipKeys: string[];
}

/**
 * Removes documents and rebuilds what they supported from the remaining chunks' stored mentions
 * (the cached extractions), so no extraction call is made. Entities and relationships left with no
 * mention disappear; every change lands in the history with the cause.
 *
 * Deleting and rebuilding are two transactions, so the keys to rebuild are written down first: a
 * process killed in between leaves them in the workspace, and the next write finishes the rebuild.
 */
export async function removeDocuments(
  services: KgragServices,
  docIds: string[],
  cause: string,
): Promise<{ entitiesTouched: number; relationshipsTouched: number }> {
  await finishPendingRebuild(services);
  if (docIds.length === 0) return { entitiesTouched: 0, relationshipsTouched: 0 };
  const { store } = services;
  const pending = { cause, ...(await keysSupportedBy(services, docIds)) };
  await store.setMeta(PENDING_REBUILD, JSON.stringify(pending));
  await markCommunitiesStale(store);
  const affected = await store.deleteDocuments(docIds);
  // One rebuild for the whole batch: an entity shared by several deleted documents is folded once.
  await rebuild(services, pending);
  return {
    entitiesTouched: affected.entityKeys.length,
    relationshipsTouched: affected.relationshipKeys.length,
  };
}

/** Applies a rebuild an earlier, interrupted delete recorded but did not apply. */
export async function finishPendingRebuild(services: KgragServices): Promise<void> {
  const recorded = await services.store.getMeta(PENDING_REBUILD);
  if (!recorded) return;
  await rebuild(services, JSON.parse(recorded) as PendingRebuild);
}

async function rebuild(services: KgragServices, pending: PendingRebuild): Promise<void> {
  const { store, config } = services;
  const resolution = await loadResolution(store);
  const changes = await planRebuild(store, pending.entityKeys, pending.relationshipKeys, pending.cause, {
    ...config.merge,
    resolution,
  });
  await store.applyGraphChanges(changes);
  await store.setMeta(PENDING_REBUILD, "");
}

/** Keys with a mention in the documents' chunks: what must be re-folded once they are gone. */
async function keysSupportedBy(
  services: KgragServices,
  docIds: string[],
): Promise<{ entityKeys: string[]; relationshipKeys: string[] }> {
  return keysMentionedIn(services.store, await chunkIdsOf(services.store, docIds));
}

/** The ids of the documents' stored chunks. */
export async function chunkIdsOf(store: KgragServices["store"], docIds: string[]): Promise<string[]> {
  const chunkIds: string[] = [];
  for (const docId of docIds) chunkIds.push(...(await store.listChunks(docId)).map((c) => c.id));
  return chunkIds;
}

/** Keys the chunks mention, as the rules fold them (the keys the graph holds). */
export async function keysMentionedIn(
  store: KgragServices["store"],
  chunkIds: string[],
): Promise<{ entityKeys: string[]; relationshipKeys: string[] }> {
  const resolution = await loadResolution(store);
  const mentions = resolveMentions(resolution, await store.getChunkMentions(chunkIds));
  return {
    entityKeys: [...new Set(mentions.entities.map((m) => m.entityKey))],
    relationshipKeys: [...new Set(mentions.relationships.map((m) => m.relationshipKey))],
  };
}
