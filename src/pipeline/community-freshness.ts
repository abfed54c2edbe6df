import type { GraphStore } from "../storage/graph-store.js";

/**
 * Set in the workspace metadata before the graph changes and cleared once communities are rebuilt,
 * so a run that dies in between (kill -9, a failed embedding call) still has the next run
 * re-cluster, even when that run itself changes nothing.
 */
const COMMUNITIES_STALE = "communities.stale";

export async function markCommunitiesStale(store: Pick<GraphStore, "setMeta">): Promise<void> {
  await store.setMeta(COMMUNITIES_STALE, "1");
}

export async function markCommunitiesFresh(store: Pick<GraphStore, "setMeta">): Promise<void> {
  await store.setMeta(COMMUNITIES_STALE, "0");
}

export async function communitiesAreStale(store: Pick<GraphStore, "getMeta">): Promise<boolean> {
  return (await store.getMeta(COMMUNITIES_STALE)) === "1";
}
