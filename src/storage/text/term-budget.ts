/**
 * Postings a relationship search may read. SQLite's FTS5 scores every row an OR-query matches
 * before it can sort, so a question's commonest words ("the", "in": most of the rows in a large
 * graph) cost far more than they add: their BM25 weight is next to nothing, and the query leaves
 * them out. The Neo4j store's in-memory BM25 applies the same budget, so both stores rank alike.
 * The embedded store's chunk search has a budget of its own (config sqliteSearch.chunkPostingBudget).
 */
export const RELATIONSHIP_POSTING_BUDGET = 20_000;

/**
 * The query terms worth reading: rarest first while their postings fit the budget, and always the
 * rarest one that matches, so a query made only of common words (or misspelt rare ones) still
 * matches something.
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
    // A term matching nothing costs nothing and finds nothing: the rarest that matches is kept too.
    if (spent > 0 && spent + rows > budget) break;
    kept.add(term);
    spent += rows;
  }
  return terms.filter((term) => kept.has(term));
}
