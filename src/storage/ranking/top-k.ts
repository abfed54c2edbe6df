/** Room a heap starts with; it doubles as pairs come, up to k. */
const INITIAL_CAPACITY = 64;

/**
 * Keeps the k best (score, row) pairs in a min-heap: O(n log k) instead of sorting all n. The heap
 * grows with what is offered, not with k: a k far above the number of candidates (a caller's topK)
 * allocates only what the candidates fill.
 */
export class TopK {
  private scores: Float64Array;
  private rows: Int32Array;
  private readonly k: number;
  private size = 0;

  constructor(k: number) {
    this.k = Math.max(0, Math.floor(k));
    this.scores = new Float64Array(Math.min(this.k, INITIAL_CAPACITY));
    this.rows = new Int32Array(this.scores.length);
  }

  offer(score: number, row: number): void {
    if (this.size < this.k) {
      if (this.size === this.scores.length) this.grow();
      this.scores[this.size] = score;
      this.rows[this.size] = row;
      this.siftUp(this.size++);
    } else if (this.k > 0 && score > (this.scores[0] as number)) {
      this.scores[0] = score;
      this.rows[0] = row;
      this.siftDown(0);
    }
  }

  sorted(): { row: number; score: number }[] {
    const out: { row: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++)
      out.push({ row: this.rows[i] as number, score: this.scores[i] as number });
    return out.sort((a, b) => b.score - a.score || a.row - b.row);
  }

  private grow(): void {
    const capacity = Math.min(this.k, this.scores.length * 2);
    const scores = new Float64Array(capacity);
    const rows = new Int32Array(capacity);
    scores.set(this.scores);
    rows.set(this.rows);
    this.scores = scores;
    this.rows = rows;
  }

  private siftUp(at: number): void {
    let child = at;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if ((this.scores[parent] as number) <= (this.scores[child] as number)) return;
      this.swap(parent, child);
      child = parent;
    }
  }

  private siftDown(at: number): void {
    let parent = at;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < this.size && (this.scores[left] as number) < (this.scores[smallest] as number))
        smallest = left;
      if (right < this.size && (this.scores[right] as number) < (this.scores[smallest] as number))
        smallest = right;
      if (smallest === parent) return;
      this.swap(parent, smallest);
      parent = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const score = this.scores[a] as number;
    this.scores[a] = this.scores[b] as number;
    this.scores[b] = score;
    const row = this.rows[a] as number;
    this.rows[a] = this.rows[b] as number;
    this.rows[b] = row;
  }
}
