import type { EntityRecord } from "../../types.js";
import type { Sql } from "./connection.js";

/**
 * Entity records kept between reads while the database is unchanged (Sql.generation: any commit,
 * by this connection or another process). Queries read the same seeds, hubs and their neighbours
 * again and again, and each read joined the keys in SQLite and parsed every record's fragments
 * and chunk ids: a tenth of a graph query. A key found missing is remembered as missing.
 */
export class EntityCache {
  private generation = "";
  private readonly records = new Map<string, EntityRecord | null>();

  constructor(
    private readonly sql: Sql,
    /** Beyond it the records are dropped all at once (config sqliteReadCache.maxEntities). */
    private readonly maxCachedRecords: number,
  ) {}

  /** Copies of the records of `keys` (each once, in first-seen order, unknown keys skipped); `load` reads the ones not cached. */
  get(keys: string[], load: (missing: string[]) => EntityRecord[]): EntityRecord[] {
    const unique = [...new Set(keys)];
    const generation = this.sql.generation();
    if (generation !== this.generation || this.records.size + unique.length > this.maxCachedRecords) {
      this.records.clear();
      this.generation = generation;
    }
    const missing = unique.filter((key) => !this.records.has(key));
    if (missing.length > 0) {
      const found = new Map(load(missing).map((record) => [record.key, record]));
      for (const key of missing) this.records.set(key, found.get(key) ?? null);
    }
    const out: EntityRecord[] = [];
    for (const key of unique) {
      const record = this.records.get(key);
      if (record) out.push(copy(record));
    }
    return out;
  }
}

/** Callers may change what they get; the cache keeps its own. */
function copy(record: EntityRecord): EntityRecord {
  return {
    ...record,
    fragments: [...record.fragments],
    sourceChunkIds: [...record.sourceChunkIds],
    ...(record.aliases ? { aliases: [...record.aliases] } : {}),
  };
}
