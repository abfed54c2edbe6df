import type { Neo4jConnection } from "./connection.js";

/**
 * Whole-workspace reads that every query repeats (the document list, the communities, the report
 * vectors' hashes, the record counts) kept in memory and served again while the workspace's write
 * generation is unchanged. Every write transaction gives the workspace a new generation (see
 * Neo4jConnection.write), whichever process commits it, so a cached read costs one small read of
 * the generation instead of thousands of rows; concurrent callers share that read.
 */
export class GenerationCache {
  private readonly entries = new Map<string, { generation: string; value: Promise<unknown> }>();
  private current: Promise<string> | undefined;

  constructor(private readonly db: Neo4jConnection) {}

  /**
   * The value `load` gives, read again only when the generation moved since it was loaded. The
   * generation is read before loading, so a write racing the load only causes a needless reload.
   */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const generation = await this.generation();
    const cached = this.entries.get(key);
    if (cached?.generation === generation) return cached.value as Promise<T>;
    const value = load();
    this.entries.set(key, { generation, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /**
   * Drops everything, and the generation read in flight: this process just wrote, and that read may
   * have started before the commit.
   */
  clear(): void {
    this.entries.clear();
    this.current = undefined;
  }

  private generation(): Promise<string> {
    this.current ??= this.db
      .read("store/generation-get")
      .then(([row]) => String(row?.generation ?? ""))
      .finally(() => {
        this.current = undefined;
      });
    return this.current;
  }
}
