import { type ReportedCommunity, selectReports } from "../../community/select-reports.js";
import type { GraphStore } from "../../storage/graph-store.js";

interface CachedReports {
  /** The store's data generation when the signature was taken (see GraphStore.dataGeneration). */
  generation: string | undefined;
  signature: string;
  level: number;
  reports: ReportedCommunity[];
}

/** Per store, one entry per level: queries at different levels must not evict each other. */
const cache = new WeakMap<GraphStore, Map<number, CachedReports>>();

/**
 * The reports at a community level, loaded once per store and reloaded when the embedded reports
 * change. Loading every community costs hundreds of milliseconds on a large graph, far more than a
 * whole query may take; the stored report vectors (re-embedded whenever a report's text or
 * membership changes) are a cheap signal that the set changed. Where the store tells its data
 * generation, an unchanged store skips even that signal (thousands of hashes read and summed).
 */
export async function reportsAtLevel(store: GraphStore, level: number): Promise<ReportedCommunity[]> {
  const generation = store.dataGeneration?.();
  const levels = cache.get(store) ?? new Map<number, CachedReports>();
  cache.set(store, levels);
  const cached = levels.get(level);
  if (generation !== undefined && cached?.generation === generation) return cached.reports;
  const hashes = await store.vectorHashes("communities");
  if (hashes.size === 0) return [];
  const signature = setSignature(hashes);
  const reports =
    cached && cached.signature === signature
      ? cached.reports
      : selectReports(await store.listCommunities(), level);
  levels.set(level, { generation, signature, level, reports });
  return reports;
}

/**
 * An order-independent fingerprint of the (id, text hash) pairs: the sum of a 32-bit FNV-1a hash
 * of each pair, with the count. Runs on every query, so it avoids sorting and hashing one big string.
 */
function setSignature(hashes: Map<string, string>): string {
  let sum = 0;
  for (const [id, hash] of hashes) {
    let h = 0x811c9dc5;
    const pair = `${id}\u0000${hash}`;
    for (let i = 0; i < pair.length; i++) h = Math.imul(h ^ pair.charCodeAt(i), 0x01000193);
    sum = (sum + (h >>> 0)) % 0x100000000;
  }
  return `${hashes.size}:${sum}`;
}
