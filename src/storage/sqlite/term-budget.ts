import type { Sql } from "./connection.js";
import { matchTerms } from "./fts-text.js";
import type { TableVersion } from "./table-version.js";

/**
 * Document frequencies of relationship full-text terms, cached while the full-text table is
 * unchanged (by this connection or another process: see table-version.ts). Counted through MATCH, so the
 * term is tokenised and stemmed exactly as the index was; counting a common term's rows costs a
 * pass over its postings, hence the cache.
 */
export class RelationshipTermFrequencies {
  private readonly cache = new Map<string, number>();
  private generation = "";

  constructor(
    private readonly sql: Sql,
    private readonly version: TableVersion,
  ) {}

  /** Rows matching the term (a word or a phrase from queryTerms). */
  rowsWith(term: string): number {
    const generation = this.version.current();
    if (generation !== this.generation) {
      this.cache.clear();
      this.generation = generation;
    }
    const cached = this.cache.get(term);
    if (cached !== undefined) return cached;
    const rows =
      this.sql.column<number>(
        "SELECT count(*) FROM relationships_fts WHERE relationships_fts MATCH ?",
        matchTerms([term]),
      )[0] ?? 0;
    this.cache.set(term, rows);
    return rows;
  }
}
