import type { EntityRecord } from "../../types.js";
import type { EntityLabel, GraphEntity } from "../graph-store.js";
import { idList, qualified, type Sql } from "./connection.js";
import { EntityCache } from "./entity-cache.js";
import type { FullTextIndex } from "./fts.js";
import { GenerationMap } from "./generation-map.js";
import { type EntityRow, type GraphEntityRow, toEntity, toGraphEntity } from "./rows.js";

const ENTITY_COLUMNS =
  "key, name, type, description, fragments, source_chunk_ids, fragments_hash, needs_summary";
const ENTITY_COLUMNS_OF_E = qualified("e", ENTITY_COLUMNS);
/** Entity columns with the aliases, which live in their own table (schema version 3). */
const ENTITY_SELECT = `SELECT ${ENTITY_COLUMNS_OF_E}, a.aliases AS aliases FROM entities e
  LEFT JOIN entity_aliases a ON a.key = e.key`;

/** Folded entities, kept in step with their full-text rows (name and description). */
export class EntityTable {
  private readonly cache: EntityCache;
  /** Labels by key (null: no such entity), while the data is unchanged: neighbourhoods label the same hubs again and again. */
  private readonly labelCache: GenerationMap<string, EntityLabel | null>;

  constructor(
    private readonly sql: Sql,
    private readonly fullText: FullTextIndex,
    /** Config sqliteReadCache.maxEntities. */
    maxCachedEntities: number,
  ) {
    this.cache = new EntityCache(sql, maxCachedEntities);
    this.labelCache = new GenerationMap(sql, maxCachedEntities);
  }

  upsert(entity: EntityRecord): void {
    if (entity.key === "") throw new Error(`Entity "${entity.name}" has an empty key.`);
    const seq = this.sql.column<number>(
      `INSERT INTO entities (${ENTITY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         name = excluded.name, type = excluded.type, description = excluded.description,
         fragments = excluded.fragments, source_chunk_ids = excluded.source_chunk_ids,
         fragments_hash = excluded.fragments_hash, needs_summary = excluded.needs_summary
       RETURNING seq`,
      entity.key,
      entity.name,
      entity.type,
      entity.description,
      JSON.stringify(entity.fragments),
      JSON.stringify(entity.sourceChunkIds),
      entity.fragmentsHash,
      entity.needsSummary ? 1 : 0,
    )[0] as number;
    this.saveAliases(entity.key, entity.aliases ?? []);
    this.fullText.queueEntity(seq);
  }

  delete(key: string): void {
    const seq = this.sql.column<number>("DELETE FROM entities WHERE key = ? RETURNING seq", key)[0];
    this.sql.run("DELETE FROM entity_aliases WHERE key = ?", key);
    if (seq !== undefined) this.fullText.removeEntity(seq);
  }

  private saveAliases(key: string, aliases: string[]): void {
    if (aliases.length === 0) this.sql.run("DELETE FROM entity_aliases WHERE key = ?", key);
    else {
      this.sql.run(
        "INSERT OR REPLACE INTO entity_aliases (key, aliases) VALUES (?, ?)",
        key,
        JSON.stringify(aliases),
      );
    }
  }

  /** In the order of `keys`; unknown keys are skipped. Served from memory while the data is unchanged (see EntityCache). */
  get(keys: string[]): EntityRecord[] {
    return this.cache.get(keys, (missing) => this.read(missing));
  }

  /** get() without copies: the cache's frozen records (see EntityCache.shared). */
  cached(keys: string[]): readonly EntityRecord[] {
    return this.cache.shared(keys, (missing) => this.read(missing));
  }

  private read(keys: string[]): EntityRecord[] {
    return this.sql
      .all<EntityRow>(
        `SELECT ${ENTITY_COLUMNS_OF_E}, a.aliases AS aliases FROM json_each(?) wanted
         JOIN entities e ON e.key = wanted.value LEFT JOIN entity_aliases a ON a.key = e.key
         ORDER BY wanted.key`,
        idList(keys),
      )
      .map(toEntity);
  }

  /** Key, name and type only, in the order of `keys`; unknown keys are skipped. From memory while the data is unchanged. */
  labels(keys: string[]): EntityLabel[] {
    const unique = [...new Set(keys)];
    const cached = this.labelCache.current(unique.length);
    const missing = unique.filter((key) => !cached.has(key));
    if (missing.length > 0) {
      const found = new Map(this.readLabels(missing).map((label) => [label.key, label]));
      for (const key of missing) cached.set(key, found.get(key) ?? null);
    }
    const out: EntityLabel[] = [];
    for (const key of keys) {
      const label = cached.get(key);
      // Copies: callers may change what they get.
      if (label) out.push({ key: label.key, name: label.name, type: label.type });
    }
    return out;
  }

  private readLabels(keys: string[]): EntityLabel[] {
    return this.sql.all<EntityLabel>(
      `SELECT e.key, e.name, e.type FROM json_each(?) wanted JOIN entities e ON e.key = wanted.value`,
      idList(keys),
    );
  }

  list(): EntityRecord[] {
    return this.sql.all<EntityRow>(`${ENTITY_SELECT} ORDER BY e.key`).map(toEntity);
  }

  /** Every entity without fragments and provenance, in key order (the order of list()). */
  listLean(): GraphEntity[] {
    return this.sql
      .all<GraphEntityRow>(
        `SELECT e.key, e.name, e.type, e.description, a.aliases AS aliases FROM entities e
         LEFT JOIN entity_aliases a ON a.key = e.key ORDER BY e.key`,
      )
      .map(toGraphEntity);
  }

  keys(): string[] {
    return this.sql.column<string>("SELECT key FROM entities");
  }

  needingSummary(): EntityRecord[] {
    return this.sql.all<EntityRow>(`${ENTITY_SELECT} WHERE e.needs_summary = 1 ORDER BY e.key`).map(toEntity);
  }
}
