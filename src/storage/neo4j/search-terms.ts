import { stemmer } from "stemmer";
import { type RelationshipSearchFields, relationshipSearchText } from "../relationship-search-text.js";

/**
 * The embedded store indexes relationship text with SQLite's `porter unicode61 remove_diacritics 2`
 * tokenizer, so "directs" finds "directed" and "Zürich" finds "Zurich". Lucene's CJK analyzer (kept
 * for Chinese bigrams) neither stems nor folds accents, so the Neo4j store indexes and queries
 * relationships by these terms instead: the same tokens unicode61 cuts, accent-folded, lower-cased
 * and Porter-stemmed, space-separated; CJK runs are kept whole for the analyzer to bigram.
 */

/** What unicode61 keeps inside a token: letters, numbers, marks and private-use characters. */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const MARKS = /\p{M}/gu;

export function stemmedTerms(text: string): string {
  return (text.match(TOKEN) ?? []).map(stemToken).join(" ");
}

/** One unicode61 token as the relationship index holds it: accent-folded, lower-cased, stemmed. */
export function stemToken(token: string): string {
  if (CJK.test(token)) return token;
  return stemmer(token.normalize("NFD").replace(MARKS, "").toLowerCase());
}

/** What the kgrag_relationship_terms full-text index reads of a relationship. */
export function relationshipSearchTerms(rel: RelationshipSearchFields): string {
  return stemmedTerms(relationshipSearchText(rel));
}
