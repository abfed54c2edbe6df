// FTS5 MATCH expressions built from the shared query terms (text/query-terms.ts).
import { queryTerms } from "../text/query-terms.js";

/**
 * A MATCH expression that can never be a syntax error: every term is a quoted FTS5 string (quotes
 * doubled), terms are OR-ed, and bm25 rewards documents that match more and rarer terms.
 * Returns null when the query has no searchable term (e.g. only punctuation).
 */
export function matchExpression(query: string): string | null {
  return matchTerms(queryTerms(query));
}

/** The MATCH expression of terms from queryTerms (or a subset of them); null when there are none. */
export function matchTerms(terms: string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}
