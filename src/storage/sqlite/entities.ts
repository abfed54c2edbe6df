import type { EntityRecord } from "../../types.js";
import { idList, qualified, type Sql } from "./connection.js";
import type { FullTextIndex } from "./fts.js";
import { type EntityRow, toEntity } from "./rows.js";

const ENTITY_COLUMNS =
  "key, name, type, description, fragments, source_chunk_ids, fragments_hash, needs_summary";
const ENTITY_COLUMNS_OF_E = qualified("e", ENTITY_COLUMNS);

/** Folded entities, kept in step with their full-text rows (name and description). */
export class EntityTable {
  constructor(
    private readonly sql: Sql,
    private readonly fullText: FullTextIndex,
  ) {}

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
    this.fullText.queueEntity(seq);
  }

  delete(key: string): void {
    const seq = this.sql.column<number>("DELETE FROM entities WHERE key = ? RETURNING seq", key)[0];
    if (seq !== undefined) this.fullText.removeEntity(seq);
  }

  /** In the order of `keys`; unknown keys are skipped. */
  get(keys: string[]): EntityRecord[] {
    return this.sql
      .all<EntityRow>(
        `SELECT ${ENTITY_COLUMNS_OF_E} FROM json_each(?) wanted JOIN entities e ON e.key = wanted.value
         ORDER BY wanted.key`,
        idList(keys),
      )
      .map(toEntity);
  }

  list(): EntityRecord[] {
    return this.sql.all<EntityRow>(`SELECT ${ENTITY_COLUMNS} FROM entities ORDER BY key`).map(toEntity);
  }

  needingSummary(): EntityRecord[] {
    return this.sql
      .all<EntityRow>(`SELECT ${ENTITY_COLUMNS} FROM entities WHERE needs_summary = 1 ORDER BY key`)
      .map(toEntity);
  }
}
