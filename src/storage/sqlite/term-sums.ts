import { TopK } from "../ranking/top-k.js";
import type { TermPostings } from "./fts-vocabulary.js";

/** A row and its summed score. */
export interface RowScore {
  row: number;
  score: number;
}

/**
 * Slack on the pruning bound: bounds and floors are sums added in another order than the exact
 * scores, so they may differ from them in the last bits; a row is dropped only when even this
 * much more could not bring it up to the floor.
 */
const PRUNING_SLACK = 1e-9;

/**
 * A term is worth skipping (and the floor worth computing before it) only when its postings are
 * at least this share of the rows touched so far: scanning a short list costs less than the check.
 */
const SKIP_WORTH = 0.5;

/** Binary-search a candidate in a term's postings rather than scan them, while candidates are this many times fewer. */
const SEARCH_RATIO = 16;

/** Each postings list's highest share, computed once per list (lists are kept per table version). */
const highestShares = new WeakMap<TermPostings, number>();

/**
 * The best rows of an OR query from per-term shares (see fts-term-scores.ts), each row's score the
 * sum of its terms' shares added in query order (FTS5's order, so scores match it to the last bit),
 * best first, ties going to the older row. Typed arrays indexed by row are kept between calls and
 * only the rows a call touched are reset.
 *
 * Summing every posting of every term made common words the cost of a search. The sums are pruned
 * as in MaxScore: terms are added best-share first into lower bounds; once the shares the rest
 * could add at most fall below the k-th best bound, no row they alone match can rank, so only the
 * rows already seen that could still reach that floor get exact sums (in query order, by scanning
 * or searching each term's postings). The result is the same as summing everything (tests compare).
 */
export class TermSums {
  private sums = new Float64Array(0);
  private bounds = new Float64Array(0);
  /** 1: touched by the bounds pass; 2: a candidate for exact sums (or touched by the full pass). */
  private marks = new Uint8Array(0);
  /** How many terms the last top() left unsummed beyond its candidates (0: every posting summed). */
  skippedTerms = 0;

  top(postings: readonly TermPostings[], topK: number): RowScore[] {
    this.skippedTerms = 0;
    if (!this.fitRows(postings) || topK <= 0) return [];
    return this.prunedTop(postings, topK) ?? this.summedTop(postings, topK);
  }

  /** top() without pruning: every posting summed (what the pruned sums are checked against). */
  fullTop(postings: readonly TermPostings[], topK: number): RowScore[] {
    if (!this.fitRows(postings) || topK <= 0) return [];
    return this.summedTop(postings, topK);
  }

  private summedTop(postings: readonly TermPostings[], topK: number): RowScore[] {
    const { sums, marks } = this;
    const touched: number[] = [];
    for (const { rowids, scores } of postings) {
      for (let i = 0; i < rowids.length; i++) {
        const row = rowids[i] as number;
        sums[row] = (sums[row] as number) + (scores[i] as number);
        if (marks[row] === 0) {
          marks[row] = 2;
          touched.push(row);
        }
      }
    }
    return this.bestOf(touched, topK);
  }

  /** The pruned sums, or undefined when no term could be skipped (the bounds' work is then dropped). */
  private prunedTop(postings: readonly TermPostings[], topK: number): RowScore[] | undefined {
    if (postings.length < 2) return undefined;
    const highest = postings.map(highestShare);
    // Bounds hold only while no share is negative (FTS5's IDF has a positive floor).
    if (highest.some((share) => share < 0)) return undefined;
    const order = highest
      .map((_, i) => i)
      .sort((a, b) => (highest[b] as number) - (highest[a] as number) || a - b);
    // What the terms from order[j] on could add to a row at most.
    const rest = new Float64Array(order.length + 1);
    for (let j = order.length - 1; j >= 0; j--)
      rest[j] = (rest[j + 1] as number) + (highest[order[j] as number] as number);
    const { bounds, marks } = this;
    const touched: number[] = [];
    let floor = 0;
    let skipFrom = -1;
    for (let j = 0; j < order.length; j++) {
      const { rowids, scores } = postings[order[j] as number] as TermPostings;
      if (touched.length >= topK && rowids.length >= SKIP_WORTH * touched.length) {
        floor = kthBest(bounds, touched, topK);
        if ((rest[j] as number) < floor * (1 - PRUNING_SLACK)) {
          skipFrom = j;
          break;
        }
      }
      for (let i = 0; i < rowids.length; i++) {
        const row = rowids[i] as number;
        bounds[row] = (bounds[row] as number) + (scores[i] as number);
        if (marks[row] === 0) {
          marks[row] = 1;
          touched.push(row);
        }
      }
    }
    if (skipFrom < 0) {
      for (const row of touched) {
        bounds[row] = 0;
        marks[row] = 0;
      }
      return undefined;
    }
    this.skippedTerms = order.length - skipFrom;
    const reach = rest[skipFrom] as number;
    const candidates: number[] = [];
    for (const row of touched) {
      if ((bounds[row] as number) + reach >= floor * (1 - PRUNING_SLACK)) {
        marks[row] = 2;
        candidates.push(row);
      } else marks[row] = 0;
      bounds[row] = 0;
    }
    candidates.sort((a, b) => a - b);
    for (const p of postings) this.addShares(p, candidates);
    return this.bestOf(candidates, topK);
  }

  /** Adds the term's share to each candidate (rows marked 2, ascending) it matches. */
  private addShares({ rowids, scores }: TermPostings, candidates: number[]): void {
    const { sums, marks } = this;
    if (rowids.length <= SEARCH_RATIO * candidates.length) {
      for (let i = 0; i < rowids.length; i++) {
        const row = rowids[i] as number;
        if (marks[row] === 2) sums[row] = (sums[row] as number) + (scores[i] as number);
      }
      return;
    }
    let from = 0;
    for (const row of candidates) {
      const at = lowerBound(rowids, row, from);
      if (at < rowids.length && rowids[at] === row)
        sums[row] = (sums[row] as number) + (scores[at] as number);
      from = at;
    }
  }

  /** The k best of the rows' sums, ties at the k-th refilled by rowid; resets the rows. */
  private bestOf(rows: number[], topK: number): RowScore[] {
    const { sums, marks } = this;
    // The heap's k best scores do not depend on the order rows are offered in.
    const best = new TopK(topK);
    for (const row of rows) best.offer(sums[row] as number, row);
    const kept = olderFirstAmongTies(best.sorted(), topK, sums, rows);
    for (const row of rows) {
      sums[row] = 0;
      marks[row] = 0;
    }
    return kept;
  }

  /** Sizes the arrays for the highest row; false when no term matches a row. */
  private fitRows(postings: readonly TermPostings[]): boolean {
    let last = -1;
    for (const p of postings) if (p.rowids.length > 0) last = Math.max(last, p.rowids.at(-1) as number);
    if (last < 0) return false;
    if (this.sums.length <= last) {
      this.sums = new Float64Array(last + 1);
      this.bounds = new Float64Array(last + 1);
      this.marks = new Uint8Array(last + 1);
    }
    return true;
  }
}

/** The list's highest share, or -1 when a share is negative (no bound then). */
function highestShare(postings: TermPostings): number {
  let highest = highestShares.get(postings);
  if (highest === undefined) {
    highest = 0;
    for (const score of postings.scores) {
      if (score < 0) {
        highest = -1;
        break;
      }
      if (score > highest) highest = score;
    }
    highestShares.set(postings, highest);
  }
  return highest;
}

/** The k-th best of the rows' values (there are at least k rows). */
function kthBest(values: Float64Array, rows: number[], k: number): number {
  const best = new TopK(k);
  for (const row of rows) best.offer(values[row] as number, row);
  return best.lowest();
}

/** The first position at or after `from` whose row id is not below `row`. */
function lowerBound(rowids: Int32Array, row: number, from: number): number {
  let low = from;
  let high = rowids.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((rowids[middle] as number) < row) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The heap keeps the k best scores, but which of several rows tied at the k-th score it keeps is
 * arbitrary; FTS5's ORDER BY score, rowid keeps the oldest. Rows above that score are all kept;
 * the ties are refilled in rowid order.
 */
function olderFirstAmongTies(kept: RowScore[], topK: number, sums: Float64Array, rows: number[]): RowScore[] {
  const lowest = kept.at(-1);
  if (!lowest || kept.length < topK) return kept;
  const above = kept.filter((k) => k.score > lowest.score);
  const tied: number[] = [];
  for (const row of rows) if (sums[row] === lowest.score) tied.push(row);
  const ties = Array.from(
    Int32Array.from(tied)
      .sort()
      .subarray(0, topK - above.length),
    (row) => ({
      row,
      score: lowest.score,
    }),
  );
  return [...above, ...ties];
}
