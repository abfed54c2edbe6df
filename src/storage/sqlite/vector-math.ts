import type { ScoredId } from "../../types.js";

/** All vectors of one namespace as one row-major matrix of unit-length rows. */
export interface VectorMatrix {
  dim: number;
  ids: string[];
  rowOf: Map<string, number>;
  rows: Float32Array;
}

/** Scales the vector to unit length in place (a zero vector stays zero), so cosine is a dot product. */
export function normalizeInPlace(vector: Float32Array, offset = 0, dim = vector.length): void {
  let squares = 0;
  for (let i = offset; i < offset + dim; i++) squares += (vector[i] as number) ** 2;
  if (squares === 0) return;
  const scale = 1 / Math.sqrt(squares);
  for (let i = offset; i < offset + dim; i++) vector[i] = (vector[i] as number) * scale;
}

/** Four independent sums let V8 overlap the multiply-adds: ~1.5x faster than one running sum. */
function dotRow(rows: Float32Array, row: number, query: Float32Array): number {
  const dim = query.length;
  const base = row * dim;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    const at = base + i;
    s0 += (rows[at] as number) * (query[i] as number);
    s1 += (rows[at + 1] as number) * (query[i + 1] as number);
    s2 += (rows[at + 2] as number) * (query[i + 2] as number);
    s3 += (rows[at + 3] as number) * (query[i + 3] as number);
  }
  for (; i < dim; i++) s0 += (rows[base + i] as number) * (query[i] as number);
  return s0 + s1 + s2 + s3;
}

/**
 * Exact cosine search. With `allow`, only allowed rows are scored, so top-k is taken among them
 * (filtering after ranking would return fewer than k results, or none).
 */
export function searchMatrix(
  matrix: VectorMatrix,
  query: number[],
  topK: number,
  allow?: Set<string>,
): ScoredId[] {
  const unitQuery = Float32Array.from(query);
  normalizeInPlace(unitQuery);
  const best = new TopK(topK);
  if (allow) {
    for (const id of allow) {
      const row = matrix.rowOf.get(id);
      if (row !== undefined) best.offer(dotRow(matrix.rows, row, unitQuery), row);
    }
  } else {
    for (let row = 0; row < matrix.ids.length; row++) best.offer(dotRow(matrix.rows, row, unitQuery), row);
  }
  return best.sorted().map(({ row, score }) => ({ id: matrix.ids[row] as string, score }));
}

/** Keeps the k best (score, row) pairs in a min-heap: O(n log k) instead of sorting all n. */
class TopK {
  private readonly scores: Float64Array;
  private readonly rows: Int32Array;
  private readonly k: number;
  private size = 0;

  constructor(k: number) {
    this.k = Math.max(0, Math.floor(k));
    this.scores = new Float64Array(this.k);
    this.rows = new Int32Array(this.k);
  }

  offer(score: number, row: number): void {
    if (this.size < this.k) {
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
