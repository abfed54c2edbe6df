import type { Sql } from "./connection.js";

/**
 * A counter in meta for one table, moved in the transaction of every write to that table. Read
 * caches of tables that an indexer leaves alone until it finishes (full-text statistics: rows are
 * only queued until then, see fts.ts; communities and their reports) key on it instead of the
 * database generation, so a reader querying while `kgrag index` commits every few hundred
 * milliseconds keeps them.
 */
export class TableVersion {
  private readonly key: string;
  private seenGeneration = "";
  private version = "";

  constructor(
    private readonly sql: Sql,
    table: string,
  ) {
    this.key = `sqlite.tableVersion.${table}`;
  }

  /**
   * Called after the write, in its transaction when there is one: a reader that looks in between
   * caches the new rows under the old version, and re-reads them once the version moves.
   */
  bump(): void {
    this.sql.run(
      `INSERT INTO meta (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
      this.key,
    );
  }

  /** The table's version; meta is read again only after the database changed. */
  current(): string {
    const generation = this.sql.generation();
    if (generation !== this.seenGeneration) {
      this.version = this.stored();
      this.seenGeneration = generation;
    }
    return this.version;
  }

  /**
   * The version as stored now, past the memo: inside a read transaction, its snapshot's. A commit by
   * another process is seen by current() only from the next synchronous stretch on.
   */
  stored(): string {
    return this.sql.column<string>("SELECT value FROM meta WHERE key = ?", this.key)[0] ?? "0";
  }
}
