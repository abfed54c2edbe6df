/** The rank of bytes[start, end) as one token, or -1 when no token has exactly these bytes. */
export type RankOf = (bytes: Uint8Array, start: number, end: number) => number;

/** Pieces up to this many bytes merge by scanning every pair each step (faster when short). */
const SCAN_MERGE_MAX_BYTES = 64;

/**
 * tiktoken's byte-pair merge of one pre-tokenizer piece: repeatedly join the adjacent pair whose
 * bytes form the lowest-ranked token (the leftmost of equals) until no pair is a token; returns
 * the ranks of the parts left. Long pieces (a run of one letter, a hash, base64) keep their pairs
 * in a heap, so they take n log n steps rather than n squared (a 100,000-byte run took minutes).
 */
export function bytePairMerge(bytes: Uint8Array, rankOf: RankOf): number[] {
  const ends = bytes.length <= SCAN_MERGE_MAX_BYTES ? scanMerge(bytes, rankOf) : heapMerge(bytes, rankOf);
  const ids: number[] = [];
  for (let i = 0; i + 1 < ends.length; i += 1) {
    const rank = rankOf(bytes, ends[i] as number, ends[i + 1] as number);
    if (rank < 0) throw new Error("Byte-pair table misses a single byte");
    ids.push(rank);
  }
  return ids;
}

/** Part boundaries after merging by a scan of every pair per step. */
function scanMerge(bytes: Uint8Array, rankOf: RankOf): number[] {
  const starts = Array.from({ length: bytes.length + 1 }, (_, i) => i);
  const pairRank = (i: number) => {
    const end = starts[i + 2];
    if (end === undefined) return Number.POSITIVE_INFINITY;
    const rank = rankOf(bytes, starts[i] as number, end);
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  };
  const ranks = starts.map((_, i) => pairRank(i));
  while (starts.length > 1) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i += 1) {
      if ((ranks[i] as number) < lowest) {
        lowest = ranks[i] as number;
        at = i;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = pairRank(at);
    if (at > 0) ranks[at - 1] = pairRank(at - 1);
  }
  return starts;
}

/**
 * Part boundaries after merging with the candidate pairs in a min-heap keyed by (rank, start): the
 * same order as the scan (lowest rank, then leftmost). Parts are a linked list over byte offsets;
 * a heap entry whose pair has changed since (its left part was absorbed, or its right part grew)
 * no longer matches the list and is dropped when it surfaces.
 */
function heapMerge(bytes: Uint8Array, rankOf: RankOf): number[] {
  const n = bytes.length;
  // next[s]: the start of the part after the part starting at s (n at the end); -1: absorbed.
  const next = new Int32Array(n + 1);
  const previous = new Int32Array(n + 1);
  for (let s = 0; s < n; s += 1) {
    next[s] = s + 1;
    previous[s] = s - 1;
  }
  next[n] = -1;
  const heap = new PairHeap();
  const offer = (start: number) => {
    if (start < 0 || start >= n) return;
    const middle = next[start] as number;
    if (middle >= n) return;
    const end = next[middle] as number;
    const rank = rankOf(bytes, start, end);
    if (rank >= 0) heap.push(rank, start, end);
  };
  for (let s = 0; s + 1 < n; s += 1) offer(s);
  for (let top = heap.pop(); top; top = heap.pop()) {
    const { start, end } = top;
    const middle = next[start] as number;
    // Stale: the left part is gone or its pair no longer ends where it did.
    if (middle < 0 || middle >= n || next[middle] !== end) continue;
    next[start] = end;
    next[middle] = -1;
    if (end < n) previous[end] = start;
    offer(start);
    offer(previous[start] as number);
  }
  const starts: number[] = [];
  for (let s = 0; s < n; s = next[s] as number) starts.push(s);
  starts.push(n);
  return starts;
}

/** A binary min-heap of (rank, start, end) ordered by rank, then start. */
class PairHeap {
  private ranks: number[] = [];
  private starts: number[] = [];
  private ends: number[] = [];

  push(rank: number, start: number, end: number): void {
    this.ranks.push(rank);
    this.starts.push(start);
    this.ends.push(end);
    let i = this.ranks.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): { rank: number; start: number; end: number } | undefined {
    const size = this.ranks.length;
    if (size === 0) return undefined;
    const top = {
      rank: this.ranks[0] as number,
      start: this.starts[0] as number,
      end: this.ends[0] as number,
    };
    this.swap(0, size - 1);
    this.ranks.pop();
    this.starts.pop();
    this.ends.pop();
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < size - 1 && this.less(left, smallest)) smallest = left;
      if (right < size - 1 && this.less(right, smallest)) smallest = right;
      if (smallest === i) break;
      this.swap(i, smallest);
      i = smallest;
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    const ra = this.ranks[a] as number;
    const rb = this.ranks[b] as number;
    return ra < rb || (ra === rb && (this.starts[a] as number) < (this.starts[b] as number));
  }

  private swap(a: number, b: number): void {
    [this.ranks[a], this.ranks[b]] = [this.ranks[b] as number, this.ranks[a] as number];
    [this.starts[a], this.starts[b]] = [this.starts[b] as number, this.starts[a] as number];
    [this.ends[a], this.ends[b]] = [this.ends[b] as number, this.ends[a] as number];
  }
}
