import type { EntityRecord } from "../../types.js";
import type { Sql } from "./connection.js";
import { GenerationMap } from "./generation-map.js";

/**
 * Entity records kept between reads while the database is unchanged (Sql.generation: any commit,
 * by this connection or another process). Queries read the same seeds, hubs and their neighbours
 * again and again, and each read joined the keys in SQLite and parsed every record's fragments
 * and chunk ids: a tenth of a graph query. A key found missing is remembered as missing.
 */
export class EntityCache {
  private readonly cached: GenerationMap<string, EntityRecord | null>;

  /** `maxCachedRecords`: beyond it the records are dropped all at once (config sqliteReadCache.maxEntities). */
  constructor(sql: Sql, maxCachedRecords: number) {
    this.cached = new GenerationMap(sql, maxCachedRecords);
  }

  /** Copies of the records of `keys` (each once, in first-seen order, unknown keys skipped); `load` reads the ones not cached. */
  get(keys: string[], load: (missing: string[]) => EntityRecord[]): EntityRecord[] {
    return this.shared(keys, load).map(copy);
  }

  /**
   * get() without the copies, for readers that change nothing (queries): copying every record's
   * chunk ids (thousands for a hub) on each read was a few per cent of a query. The records are
   * frozen, arrays included, so a change throws instead of reaching the next reader.
   */
  shared(keys: string[], load: (missing: string[]) => EntityRecord[]): readonly EntityRecord[] {
    const unique = [...new Set(keys)];
    const records = this.cached.current(unique.length);
    const missing = unique.filter((key) => !records.has(key));
    if (missing.length > 0) {
      const found = new Map(load(missing).map((record) => [record.key, record]));
      for (const key of missing) {
        const record = found.get(key);
        records.set(key, record ? frozen(record) : null);
      }
    }
    const out: EntityRecord[] = [];
    for (const key of unique) {
      const record = records.get(key);
      if (record) out.push(record);
    }
    return out;
  }
}

function frozen(record: EntityRecord): EntityRecord {
  Object.freeze(record.fragments);
  Object.freeze(record.sourceChunkIds);
  if (record.aliases) Object.freeze(record.aliases);
  return Object.freeze(record);
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
