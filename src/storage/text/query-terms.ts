/**
 * Text preparation for FTS5's unicode61 tokenizer, which splits on spaces and punctuation only and
 * would keep a whole Chinese sentence as one token. CJK runs are therefore cut into words with
 * Intl.Segmenter before indexing, and queries are cut the same way, so both sides agree. Shared by
 * both stores: the Neo4j store's in-memory BM25 (neo4j/text-search.ts) cuts text and queries as
 * the embedded store's FTS5 tables do, so both rank alike.
 */

import { BoundedMemo } from "../../util/bounded-memo.js";
import { lazySegmenter } from "../../util/lazy-segmenter.js";

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** What unicode61 keeps inside a token: letters, numbers, marks and private-use characters. */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

const MARKS = /\p{M}/gu;
/** Combining diacritics on a Latin letter: the only marks unicode61's remove_diacritics 2 drops. */
const LATIN_DIACRITICS = /(?<=\p{Script=Latin}\p{M}*)[\u0300-\u036f]/gu;

/** Longest query we turn into terms; longer queries are truncated, not rejected. */
const MAX_QUERY_TERMS = 64;

const wordSegmenter = lazySegmenter("zh", "word");

function cjkWords(run: string): string[] {
  const words: string[] = [];
  for (const part of wordSegmenter().segment(run)) if (part.isWordLike) words.push(part.segment);
  return words;
}

/**
 * Segmented CJK runs, remembered: a flush indexes the same sentence many times (every relationship
 * found in a sentence is described by it), and the dictionary segmenter was three quarters of a
 * Chinese corpus's full-text flush. Bounded (cleared when full), about a few MB at most.
 */
const segmentedRuns = new BoundedMemo<string, string>(50_000);

/** The text as stored in an FTS table: CJK runs become space-separated words, the rest is kept. */
export function segmentForIndex(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => segmentedRuns.get(run, () => ` ${cjkWords(run).join(" ")} `));
}

/**
 * Query terms. Outside CJK, a term is a token. Inside a CJK run, words the segmenter knows are
 * terms, and runs of single characters (names the dictionary lacks, like 腾讯 -> 腾 讯) are kept
 * together as one phrase so they match as a sequence instead of as unrelated characters.
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  let lastEnd = 0;
  for (const match of query.matchAll(CJK_RUN)) {
    // One by one: spreading the words of a very long question overflows the call stack.
    for (const term of plainTokens(query.slice(lastEnd, match.index))) terms.push(term);
    for (const term of cjkTerms(match[0])) terms.push(term);
    lastEnd = match.index + match[0].length;
  }
  for (const term of plainTokens(query.slice(lastEnd))) terms.push(term);
  // "The" and "the", "Café" and "cafe" are one token in the index: counted once.
  const byToken = new Map<string, string>();
  for (const term of terms) {
    const token = unicode61Token(term);
    if (!byToken.has(token)) byToken.set(token, term);
  }
  return [...byToken.values()].slice(0, MAX_QUERY_TERMS);
}

/**
 * A word as the SQLite tables' unicode61 tokenizer (remove_diacritics 2) indexes it: case folded,
 * Latin diacritics dropped, other marks kept (ё and е, ガ and カ, ά and α stay apart).
 */
export function unicode61Token(word: string): string {
  return word.normalize("NFD").replace(LATIN_DIACRITICS, "").normalize("NFC").toLowerCase();
}

/** Coarser than unicode61: every mark dropped (the Neo4j store's in-memory chunk index). */
export function foldToken(token: string): string {
  return token.normalize("NFD").replace(MARKS, "").toLowerCase();
}

function plainTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * Single characters that only shape a question or a clause (是, 谁, 吗, 的...). The segmenter
 * leaves them alone like the characters of an unknown name, so in a run of singles they would
 * join the name's phrase ("林 晓 峰 是 谁"), which no passage contains: they end the run instead
 * and are terms of their own, as the words the segmenter knows are (BM25 weighs them little).
 */
const QUESTION_CHARACTERS = new Set([..."是谁吗呢吧啊呀么的了"]);

function cjkTerms(run: string): string[] {
  const terms: string[] = [];
  let singles: string[] = [];
  const flushSingles = () => {
    if (singles.length > 0) terms.push(singles.join(" "));
    singles = [];
  };
  for (const word of cjkWords(run)) {
    if (QUESTION_CHARACTERS.has(word)) {
      flushSingles();
      terms.push(word);
    } else if ([...word].length === 1) {
      singles.push(word);
    } else {
      flushSingles();
      terms.push(word);
    }
  }
  flushSingles();
  return terms;
}
