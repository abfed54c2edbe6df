import { z } from "zod";
import type { GraphStore } from "../storage/graph-store.js";
import type { RetiredCommunity } from "./id-continuity.js";

/**
 * Workspace metadata key of the retired community ids, each with the live community that took
 * over its members (metadata exists in every store, so both adapters and `kgrag migrate` carry it).
 */
const ALIASES_META_KEY = "communities.aliases";

const CommunityAliasSchema = z.object({ id: z.string().min(1), successorId: z.string().min(1) });
export type CommunityAlias = z.infer<typeof CommunityAliasSchema>;

/** Newest first. */
export async function loadCommunityAliases(store: Pick<GraphStore, "getMeta">): Promise<CommunityAlias[]> {
  const raw = await store.getMeta(ALIASES_META_KEY);
  if (!raw) return [];
  return z.array(CommunityAliasSchema).parse(JSON.parse(raw));
}

/**
 * The alias table after a re-clustering: this run's retired ids first, then the earlier aliases
 * whose successor still lives or was itself retired into one that does (chains are followed at
 * write time, so a lookup is one step). Ids live again and retirements without a successor drop
 * out; at most `limit` entries are kept, newest first.
 */
export function nextCommunityAliases(
  earlier: readonly CommunityAlias[],
  retired: readonly RetiredCommunity[],
  liveIds: ReadonlySet<string>,
  limit: number,
): CommunityAlias[] {
  const successorOf = new Map(retired.map((r) => [r.id, r.successorId]));
  const followed = (successorId: string) =>
    liveIds.has(successorId) ? successorId : (successorOf.get(successorId) ?? null);
  const candidates = [
    ...retired,
    ...earlier.map((alias) => ({ id: alias.id, successorId: followed(alias.successorId) })),
  ];
  const seen = new Set<string>();
  const aliases: CommunityAlias[] = [];
  for (const { id, successorId } of candidates) {
    if (seen.has(id) || liveIds.has(id)) continue;
    seen.add(id);
    if (successorId !== null) aliases.push({ id, successorId });
  }
  return aliases.slice(0, limit);
}

/**
 * Adds a re-clustering's retired ids to the stored alias table (see nextCommunityAliases); writes
 * only when the table changed, which most re-clusterings, retiring nothing, leave alone.
 */
export async function rememberRetiredIds(
  store: Pick<GraphStore, "getMeta" | "setMeta">,
  retired: readonly RetiredCommunity[],
  liveIds: ReadonlySet<string>,
  limit: number,
): Promise<void> {
  const earlier = await loadCommunityAliases(store);
  const next = nextCommunityAliases(earlier, retired, liveIds, limit);
  if (JSON.stringify(next) !== JSON.stringify(earlier)) {
    await store.setMeta(ALIASES_META_KEY, next.length === 0 ? "" : JSON.stringify(next));
  }
}

/** The live community a retired id now lives on in, if any. */
export async function successorOfRetiredId(
  store: Pick<GraphStore, "getMeta">,
  id: string,
): Promise<string | undefined> {
  return (await loadCommunityAliases(store)).find((alias) => alias.id === id)?.successorId;
}
