import type { Neo4jConnection } from "./connection.js";

/**
 * How long a generation read answers for: a query asks a dozen cached reads one after another,
 * and reading the generation for each cost more than the rest of the query. Another process's
 * write is therefore seen at most this late; this process's own writes are seen at once.
 */
export const GENERATION_REUSE_MS = 100;
/** A process that wrote this recently is taken to be writing still (indexing): see writingNow. */
const WRITING_MS = 1000;

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
  private lastRead: { generation: string; at: number } | undefined;
  private lastWrite = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Neo4jConnection,
    private readonly reuseMs = GENERATION_REUSE_MS,
  ) {}

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
    this.lastRead = undefined;
    this.lastWrite = performance.now();
  }

  /**
   * Whether this process wrote within the last second: an indexer's reads would each pay a
   * generation read (its own commits keep clearing the cache) and gain nothing from memos.
   */
  writingNow(): boolean {
    return performance.now() - this.lastWrite < WRITING_MS;
  }

  private async generation(): Promise<string> {
    const last = this.lastRead;
    if (last && performance.now() - last.at < this.reuseMs) return last.generation;
    this.current ??= this.readGeneration();
    return this.current;
  }

  private readGeneration(): Promise<string> {
    const started = performance.now();
    const read = this.db
      .read("store/generation-get")
      .then(([row]) => {
        const generation = String(row?.generation ?? "");
        // Reused from when it was asked, and only if no write of this process came in between.
        if (this.current === read) this.lastRead = { generation, at: started };
        return generation;
      })
      .finally(() => {
        if (this.current === read) this.current = undefined;
      });
    return read;
  }
}
