import type { VectorNamespace } from "../../types.js";
import type { Neo4jConnection } from "./connection.js";
import { vectorStats } from "./vectors.js";

export interface NamespaceStats {
  count: number;
  dimension: number | undefined;
}

/** How long another process's writes may go unseen in the exact-versus-index choice. */
const FRESH_MS = 10_000;

/**
 * Each vector search needs to know whether its namespace is small (ranked exactly) and its
 * dimension. Reading that once per search costs a round trip and a label scan, so it is kept for a
 * few seconds, and forgotten at once when this store writes or deletes vectors of the namespace.
 */
export class VectorStatsCache {
  private readonly known = new Map<VectorNamespace, { stats: NamespaceStats; at: number }>();

  constructor(
    private readonly db: Neo4jConnection,
    private readonly countLimit: number,
  ) {}

  async get(ns: VectorNamespace): Promise<NamespaceStats> {
    const cached = this.known.get(ns);
    if (cached && Date.now() - cached.at < FRESH_MS) return cached.stats;
    const stats = await vectorStats(this.db, ns, this.countLimit);
    this.known.set(ns, { stats, at: Date.now() });
    return stats;
  }

  forget(ns: VectorNamespace): void {
    this.known.delete(ns);
  }
}
