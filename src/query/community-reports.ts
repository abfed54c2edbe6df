import { type ReportedCommunity, selectReports } from "../community/select-reports.js";
import type { GraphStore } from "../storage/graph-store.js";
import { hashText } from "../util/hash.js";

interface CachedReports {
  signature: string;
  level: number;
  reports: ReportedCommunity[];
}

const cache = new WeakMap<GraphStore, CachedReports>();

/**
 * The reports at a community level, loaded once per store and reloaded when the embedded reports
 * change. Loading every community costs hundreds of milliseconds on a large graph, far more than a
 * whole query may take; the stored report vectors (re-embedded whenever a report's text or
 * membership changes) are a cheap signal that the set changed.
 */
export async function reportsAtLevel(store: GraphStore, level: number): Promise<ReportedCommunity[]> {
  const hashes = await store.vectorHashes("communities");
  if (hashes.size === 0) return [];
  const signature = hashText(
    [...hashes]
      .map(([id, hash]) => `${id}:${hash}`)
      .sort()
      .join("\n"),
  );
  const cached = cache.get(store);
  if (cached && cached.signature === signature && cached.level === level) return cached.reports;
  const reports = selectReports(await store.listCommunities(), level);
  cache.set(store, { signature, level, reports });
  return reports;
}
