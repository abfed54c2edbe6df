import type { Sql } from "./connection.js";
import { matchTerms } from "./fts-text.js";
import type { TableVersion } from "./table-version.js";

/**
 * Postings a relationship search may read. SQLite's FTS5 scores every row an OR-query matches
 * before it can sort, so a question's commonest words ("the", "in": most of the rows in a large
 * graph) cost far more than they add: their BM25 weight is next to nothing. Lucene (the Neo4j
 * store) skips such postings on its own; here the query leaves them out.
 */
export const RELATIONSHIP_POSTING_BUDGET = 20_000;

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

/**
 * The query terms worth reading: rarest first while their postings fit the budget, and always the
 * rarest one, so a query made only of common words still matches something.
 */
export function affordableTerms(
  terms: string[],
  rowsWith: (term: string) => number,
  budget: number,
): string[] {
  const byRarity = terms.map((term) => ({ term, rows: rowsWith(term) })).sort((a, b) => a.rows - b.rows);
  const kept = new Set<string>();
  let spent = 0;
  for (const { term, rows } of byRarity) {
    if (kept.size > 0 && spent + rows > budget) break;
    kept.add(term);
    spent += rows;
  }
  return terms.filter((term) => kept.has(term));
}
