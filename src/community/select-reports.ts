import type { CommunityRecord, CommunityReport } from "../types.js";

export type ReportedCommunity = CommunityRecord & { report: CommunityReport };

/**
 * The communities that describe the graph at one level: each entity is rolled up to its deepest
 * community at or below `level`. A community that stopped splitting above the level (small enough
 * already) therefore still speaks for its entities. Only communities with a report are returned.
 */
export function selectReports(communities: readonly CommunityRecord[], level: number): ReportedCommunity[] {
  const deepest = new Map<string, CommunityRecord>();
  for (const community of communities) {
    if (community.level > level) continue;
    for (const key of community.entityKeys) {
      const current = deepest.get(key);
      if (!current || current.level < community.level) deepest.set(key, community);
    }
  }
  const selected = new Map<string, ReportedCommunity>();
  for (const community of deepest.values()) {
    if (hasReport(community)) selected.set(community.id, community);
  }
  return [...selected.values()].sort(
    (a, b) => a.level - b.level || b.entityKeys.length - a.entityKeys.length || (a.id < b.id ? -1 : 1),
  );
}

/** A type guard, so callers can narrow without casts. */
export function hasReport(community: CommunityRecord): community is ReportedCommunity {
  return community.report !== null;
}
