import type { Sql } from "./connection.js";

/**
 * A counter in meta per full-text table, moved in the transaction of every write to that table.
 * Caches of full-text statistics key on it instead of the database generation, so they survive
 * the commits that leave the index alone: an indexer commits every few hundred milliseconds but
 * only queues full-text rows until it finishes (see fts.ts), and a reader querying meanwhile
 * keeps its cached postings.
 */
export class FtsVersion {
  private readonly key: string;
  private seenGeneration = "";
  private version = "";

  constructor(
    private readonly sql: Sql,
    table: string,
  ) {
    this.key = `sqlite.ftsVersion.${table}`;
  }

  /** Called inside the transaction that changes the table. */
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
      this.version = this.sql.column<string>("SELECT value FROM meta WHERE key = ?", this.key)[0] ?? "0";
      this.seenGeneration = generation;
    }
    return this.version;
  }
}
