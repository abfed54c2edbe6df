import { TopK } from "../ranking/top-k.js";
import type { Sql } from "./connection.js";
import { matchTerms } from "./fts-text.js";
import { type TermPostings, VOCABULARY_MIN_ROWS, VocabularyScores } from "./fts-vocabulary.js";
import type { TableVersion } from "./table-version.js";

/** Cached postings beyond this many are dropped all at once, so memory stays bounded. */
const MAX_CACHED_POSTINGS = 2_000_000;

/**
 * BM25 of OR queries over one single-column FTS5 table, summed in JavaScript from per-term scores
 * read once per version of the table (see table-version.ts). FTS5's bm25 of `"a" OR "b" ...` is, for each row, the sum in
 * query order of each term's own share (its IDF, which depends on that term alone, times its
 * saturated frequency in the row; see fts5_aux.c), so summing the shares a one-term query returns
 * gives the same scores to the last bit. FTS5 recomputes every term's IDF and scores every
 * matching row on each query, which made relationship search the costliest step of a query; a
 * question's words recur from query to query, so their shares are read once.
 */
export class TermScores {
  private readonly terms = new Map<string, TermPostings>();
  /** Rows per term, counted without reading the postings (see rowsWith). */
  private readonly counts = new Map<string, number>();
  private cachedPostings = 0;
  private generation = "";

  private readonly vocabulary: VocabularyScores;

  constructor(
    private readonly sql: Sql,
    private readonly fts: string,
    private readonly version: TableVersion,
  ) {
    this.vocabulary = new VocabularyScores(sql, fts, version);
  }

  /** Per-row sums and hit flags, kept between calls (only the rows a call touched are reset). */
  private sums = new Float64Array(0);
  private hit = new Uint8Array(0);
  /**
   * The rows a call touched, in the order first touched; kept between calls too (a list grown row by
   * row was the largest allocation of a mix query).
   */
  private touched = new Int32Array(0);

  /** Row ids of the best `topK` rows matching any term, best first; ties go to the older row. */
  top(terms: string[], topK: number): { rowid: number; score: number }[] {
    this.learnTokens(terms);
    const postings = terms.map((term) => this.postings(term));
    let last = -1;
    for (const p of postings) if (p.rowids.length > 0) last = Math.max(last, p.rowids.at(-1) as number);
    if (last < 0 || topK <= 0) return [];
    if (this.sums.length <= last) {
      this.sums = new Float64Array(last + 1);
      this.hit = new Uint8Array(last + 1);
      this.touched = new Int32Array(last + 1);
    }
    const { sums, hit, touched } = this;
    let touchedCount = 0;
    // Term by term, in query order: the order FTS5 adds the shares in.
    for (const { rowids, scores } of postings) {
      for (let i = 0; i < rowids.length; i++) {
        const row = rowids[i] as number;
        sums[row] = (sums[row] as number) + (scores[i] as number);
        if (!hit[row]) {
          hit[row] = 1;
          touched[touchedCount++] = row;
        }
      }
    }
    // The heap's k best scores do not depend on the order rows are offered in; ties at the k-th are refilled by rowid.
    const best = new TopK(topK);
    for (let at = 0; at < touchedCount; at++) {
      const row = touched[at] as number;
      best.offer(sums[row] as number, row);
    }
    const ranked = best.sorted();
    // Ties at the k-th score matter only when the heap is full; they are found as the sums are reset.
    const lowest = ranked.length < topK ? undefined : ranked.at(-1)?.score;
    const tied: number[] = [];
    for (let at = 0; at < touchedCount; at++) {
      const row = touched[at] as number;
      if (sums[row] === lowest) tied.push(row);
      sums[row] = 0;
      hit[row] = 0;
    }
    return olderFirstAmongTies(ranked, topK, tied).map(({ row, score }) => ({ rowid: row, score }));
  }

  /**
   * The summed score of each given row that matches any term (rows matching none are left out),
   * added term by term in query order as top() adds them. A scoped search scores its few allowed
   * rows from the cached shares instead of having FTS5 score every row matching a common word.
   */
  scoresOf(terms: string[], rowids: number[]): Map<number, number> {
    const scores = new Map<number, number>();
    this.learnTokens(terms);
    for (const { rowids: matching, scores: shares } of terms.map((term) => this.postings(term))) {
      for (const row of rowids) {
        const at = indexOf(matching, row);
        if (at >= 0) scores.set(row, (scores.get(row) ?? 0) + (shares[at] as number));
      }
    }
    return scores;
  }

  /**
   * Rows matching the term (a word or a phrase from queryTerms), counted through MATCH so the term
   * is tokenised as the index was. Counting walks the term's postings in SQLite without scoring
   * them: what a search budget (see storage/text/term-budget.ts) asks before deciding to read them.
   */
  rowsWith(term: string): number {
    this.catchUp();
    const read = this.terms.get(term);
    if (read) return read.rowids.length;
    let rows = this.counts.get(term);
    if (rows === undefined) {
      rows =
        this.sql.column<number>(
          `SELECT count(*) FROM ${this.fts} WHERE ${this.fts} MATCH ?`,
          matchTerms([term]),
        )[0] ?? 0;
      this.counts.set(term, rows);
    }
    return rows;
  }

  /** Tokenises the terms whose postings are still to read in one batch (see VocabularyScores). */
  private learnTokens(terms: string[]): void {
    this.catchUp();
    this.vocabulary.learnTokens(
      terms.filter((term) => !this.terms.has(term) && this.rowsWith(term) >= VOCABULARY_MIN_ROWS),
    );
  }

  /** Forgets what was read of an older version of the table, or everything past the cap. */
  private catchUp(): void {
    const generation = this.version.current();
    if (generation !== this.generation || this.cachedPostings > MAX_CACHED_POSTINGS) {
      this.terms.clear();
      this.cachedPostings = 0;
      if (generation !== this.generation) this.counts.clear();
      this.generation = generation;
    }
  }

  private postings(term: string): TermPostings {
    this.catchUp();
    let postings = this.terms.get(term);
    if (!postings) {
      postings = this.read(term);
      this.terms.set(term, postings);
      this.cachedPostings += postings.rowids.length;
    }
    return postings;
  }

  /** From the index's statistics where they serve (see fts-vocabulary.ts), else bm25() row by row. */
  private read(term: string): TermPostings {
    return this.vocabulary.postings(term, this.rowsWith(term)) ?? this.readByBm25(term);
  }

  private readByBm25(term: string): TermPostings {
    const rows = this.sql.tuples<[rowid: number, score: number]>(
      `SELECT rowid, -bm25(${this.fts}) AS score FROM ${this.fts} WHERE ${this.fts} MATCH ? ORDER BY rowid`,
      matchTerms([term]),
    );
    const rowids = new Int32Array(rows.length);
    const scores = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [rowid, score] = rows[i] as [number, number];
      rowids[i] = rowid;
      scores[i] = score;
    }
    return { rowids, scores };
  }
}

/** Where `row` sits in the ascending row ids, or -1. */
function indexOf(rowids: Int32Array, row: number): number {
  let low = 0;
  let high = rowids.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = rowids[middle] as number;
    if (value === row) return middle;
    if (value < row) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * The heap keeps the k best scores, but which of several rows tied at the k-th score it keeps is
 * arbitrary; FTS5's ORDER BY score, rowid keeps the oldest. Rows above that score are all kept;
 * the ties (`tied`: every touched row scoring the k-th score) are refilled in rowid order.
 */
function olderFirstAmongTies(
  kept: { row: number; score: number }[],
  topK: number,
  tied: number[],
): { row: number; score: number }[] {
  const lowest = kept.at(-1);
  if (!lowest || kept.length < topK) return kept;
  const above = kept.filter((k) => k.score > lowest.score);
  const tiedRows = Int32Array.from(tied).sort();
  const ties = Array.from(tiedRows.subarray(0, topK - above.length), (row) => ({ row, score: lowest.score }));
  return [...above, ...ties];
}
