import type { Sql } from "./connection.js";

/**
 * A map whose entries hold while the database is unchanged (Sql.generation: any commit, by this
 * connection or another process): emptied when the data moves on, and all at once when it would
 * grow past its cap, so memory stays bounded on huge graphs.
 */
export class GenerationMap<K, V> {
  private generation = "";
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly sql: Sql,
    readonly maxEntries: number,
  ) {}

  /** The entries valid now, with room for `incoming` more. */
  current(incoming: number): Map<K, V> {
    const generation = this.sql.generation();
    if (generation !== this.generation || this.entries.size + incoming > this.maxEntries) {
      this.entries.clear();
      this.generation = generation;
    }
    return this.entries;
  }
}
