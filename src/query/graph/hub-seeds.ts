import { BROADEST_THEMES } from "../communities/community-context.js";
import { reportsAtLevel } from "../communities/community-reports.js";
import type { QueryGraph } from "./query-graph.js";

/**
 * Seeds for a whole-corpus question ("What are the main themes?"), which names no entity to link:
 * the best-connected entity of each of the largest top-level communities, equally weighted, so
 * the walk reaches the passages the corpus is mostly about. Empty before communities exist.
 */
export async function hubSeeds(graph: QueryGraph): Promise<Map<string, number>> {
  const broadest = (await reportsAtLevel(graph.store, 0)).slice(0, BROADEST_THEMES);
  const seeds = new Map<string, number>();
  for (const community of broadest) {
    const members = community.entityKeys.filter((k) => graph.entityAllowed(k));
    const degrees = await graph.store.degrees(members);
    const hub = members.reduce<string | undefined>(
      (best, key) => (best === undefined || (degrees.get(key) ?? 0) > (degrees.get(best) ?? 0) ? key : best),
      undefined,
    );
    if (hub) seeds.set(hub, 1);
  }
  return seeds;
}
