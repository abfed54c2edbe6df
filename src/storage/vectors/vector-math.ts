import type { ScoredId } from "../../types.js";
import { TopK } from "../ranking/top-k.js";
import { decodeVectorInto, isVectorBlob } from "./vector-blob.js";

/**
 * All vectors of one namespace as unit-length rows, stored COLUMN-major: `columns[d * size + row]`.
 * A search then adds one column per non-zero query dimension into a score per row, reading memory
 * in order. Sparse queries (the hashing embedder's hold ~100 non-zero dimensions of 512) touch only
 * their columns, a fraction of the matrix; dense ones do the same work as a row-by-row scan.
 */
export interface VectorMatrix {
  dim: number;
  ids: string[];
  rowOf: Map<string, number>;
  columns: Float32Array;
  /** Score per row, reused by every search so that a query allocates nothing in proportion to the matrix. */
  scores: Float64Array;
}

/** Scales the vector to unit length in place (a zero vector stays zero), so cosine is a dot product. */
export function normalizeInPlace(vector: Float32Array, offset = 0, dim = vector.length): void {
  let squares = 0;
  for (let i = offset; i < offset + dim; i++) squares += (vector[i] as number) ** 2;
  if (squares === 0) return;
  const scale = 1 / Math.sqrt(squares);
  for (let i = offset; i < offset + dim; i++) vector[i] = (vector[i] as number) * scale;
}

/** Rows transposed in blocks, so both the reads and the column writes stay mostly sequential. */
const BLOCK_ROWS = 64;

/**
 * Builds a VectorMatrix from rows given one at a time (as they stream out of SQLite or Neo4j). A
 * strict builder expects exactly `size` rows (SQLite counts them in the same transaction); a
 * growable one takes `size` as a first guess (a stream's length is known only at its end) and
 * re-lays its columns when the rows outnumber it or end short of it.
 */
export class MatrixBuilder {
  private readonly ids: string[] = [];
  private columns: Float32Array;
  private capacity: number;
  private readonly block: Float32Array;
  private inBlock = 0;

  constructor(
    size: number,
    private readonly dim: number,
    private readonly growable = false,
  ) {
    this.capacity = size;
    this.columns = new Float32Array(size * dim);
    this.block = new Float32Array(BLOCK_ROWS * dim);
  }

  /** `blob` is a stored vector in either form (vector-blob.ts); SQLite blobs need not be 4-byte aligned. */
  add(id: string, blob: Uint8Array): void {
    if (!isVectorBlob(blob, this.dim)) {
      throw new Error(
        `Vector "${id}" does not fit the matrix being loaded: its ${blob.byteLength} bytes are no ` +
          `encoding of ${this.dim} values.`,
      );
    }
    if (this.ids.length >= this.capacity) {
      if (!this.growable) {
        throw new Error(
          `Vector "${id}" does not fit the matrix being loaded (${this.capacity} x ${this.dim}).`,
        );
      }
      this.relayOut(Math.max(BLOCK_ROWS, this.capacity * 2));
    }
    this.ids.push(id);
    decodeVectorInto(blob, this.dim, this.block, this.inBlock * this.dim, id);
    normalizeInPlace(this.block, this.inBlock * this.dim, this.dim);
    this.inBlock += 1;
    if (this.inBlock === BLOCK_ROWS) this.flush();
  }

  finish(): VectorMatrix {
    this.flush();
    if (this.ids.length !== this.capacity) {
      if (!this.growable) {
        throw new Error(
          `Expected ${this.capacity} vectors while loading the matrix, got ${this.ids.length}.`,
        );
      }
      this.relayOut(this.ids.length);
    }
    const ids = this.ids;
    return {
      dim: this.dim,
      ids,
      rowOf: new Map(ids.map((id, row) => [id, row])),
      columns: this.columns,
      scores: new Float64Array(ids.length),
    };
  }

  /** Moves the rows loaded so far into columns of a new length (column d starts at d x capacity). */
  private relayOut(capacity: number): void {
    this.flush();
    const rows = this.ids.length;
    const columns = new Float32Array(capacity * this.dim);
    for (let d = 0; d < this.dim; d++) {
      columns.set(this.columns.subarray(d * this.capacity, d * this.capacity + rows), d * capacity);
    }
    this.columns = columns;
    this.capacity = capacity;
  }

  private flush(): void {
    const first = this.ids.length - this.inBlock;
    for (let d = 0; d < this.dim; d++) {
      const column = d * this.capacity + first;
      for (let j = 0; j < this.inBlock; j++)
        this.columns[column + j] = this.block[j * this.dim + d] as number;
    }
    this.inBlock = 0;
  }
}

/** The query's non-zero dimensions with their unit-length values. */
interface SparseQuery {
  dims: Int32Array;
  values: Float64Array;
}

function sparseUnitQuery(query: number[]): SparseQuery {
  const unit = Float32Array.from(query);
  normalizeInPlace(unit);
  let nonZero = 0;
  for (const value of unit) if (value !== 0) nonZero += 1;
  const dims = new Int32Array(nonZero);
  const values = new Float64Array(nonZero);
  let at = 0;
  for (let d = 0; d < unit.length; d++) {
    if (unit[d] === 0) continue;
    dims[at] = d;
    values[at++] = unit[d] as number;
  }
  return { dims, values };
}

/** Below this share of allowed rows, scoring each allowed row alone beats a scan of whole columns. */
const ROW_BY_ROW_SHARE = 1 / 16;

/**
 * Exact cosine search. With `allow`, only allowed rows are ranked, so top-k is taken among them
 * (filtering after ranking would return fewer than k results, or none).
 */
export function searchMatrix(
  matrix: VectorMatrix,
  query: number[],
  topK: number,
  allow?: Set<string>,
): ScoredId[] {
  const sparse = sparseUnitQuery(query);
  const best = new TopK(topK);
  const size = matrix.ids.length;
  if (allow && allow.size < size * ROW_BY_ROW_SHARE) {
    for (const id of allow) {
      const row = matrix.rowOf.get(id);
      if (row !== undefined) best.offer(scoreRow(matrix, row, sparse), row);
    }
    return rankedIds(matrix, best);
  }
  const allowed = allow instanceof FixedIdSet ? allowedRows.of(matrix, allow) : undefined;
  if (allowed) {
    // The allowed rows alone, in the order they are allowed in: the same scores for the same rows,
    // offered in the same order as below.
    const scores = scoreAllRows(allowed.matrix, sparse);
    for (let i = 0; i < allowed.rows.length; i++) best.offer(scores[i] as number, allowed.rows[i] as number);
    return rankedIds(matrix, best);
  }
  const scores = scoreAllRows(matrix, sparse);
  if (allow) {
    for (const id of allow) {
      const row = matrix.rowOf.get(id);
      if (row !== undefined) best.offer(scores[row] as number, row);
    }
  } else {
    for (let row = 0; row < size; row++) best.offer(scores[row] as number, row);
  }
  return rankedIds(matrix, best);
}

function rankedIds(matrix: VectorMatrix, best: TopK): ScoredId[] {
  return best.sorted().map(({ row, score }) => ({ id: matrix.ids[row] as string, score }));
}

/**
 * An allow-list that cannot change once made, for lists searched again and again (global search
 * passes the same list of reports, cached per data version, every query): such a list is answered
 * from a copy of its rows (see AllowedRows), which a list changed afterwards would leave stale.
 */
export class FixedIdSet extends Set<string> {
  private readonly fixed: boolean;

  constructor(ids: Iterable<string>) {
    super(ids);
    this.fixed = true;
  }

  override add(id: string): this {
    // Set's constructor adds the initial ids through add(), before `fixed` is set.
    if (this.fixed) throw new Error("A FixedIdSet does not change: make a new one");
    return super.add(id);
  }

  override delete(_id: string): boolean {
    throw new Error("A FixedIdSet does not change: make a new one");
  }

  override clear(): void {
    throw new Error("A FixedIdSet does not change: make a new one");
  }
}

/**
 * The allowed rows of a matrix as a matrix of their own, for a FixedIdSet: the scan then reads
 * only those rows' columns and looks no id up. Built on a list's second search on the same matrix
 * (a copy reads every dimension of its rows, a scan only the query's); both are held weakly, so a
 * new matrix or list lets the old copy go.
 */
class AllowedRows {
  private readonly seen = new WeakMap<FixedIdSet, VectorMatrix>();
  private readonly built = new WeakMap<FixedIdSet, { of: VectorMatrix; allowed: SubMatrix }>();

  of(matrix: VectorMatrix, allow: FixedIdSet): SubMatrix | undefined {
    const built = this.built.get(allow);
    if (built?.of === matrix) return built.allowed;
    if (this.seen.get(allow) !== matrix) {
      this.seen.set(allow, matrix);
      return undefined;
    }
    const allowed = subMatrix(matrix, allow);
    this.built.set(allow, { of: matrix, allowed });
    return allowed;
  }
}

const allowedRows = new AllowedRows();

/** Some rows of a matrix, copied into one of their own; `rows[i]` is row i's number in the whole. */
interface SubMatrix {
  matrix: ColumnScan;
  rows: Int32Array;
}

/** The rows of `allow` (in its order, unknown ids left out) with their columns copied. */
function subMatrix(matrix: VectorMatrix, allow: Set<string>): SubMatrix {
  const found: number[] = [];
  for (const id of allow) {
    const row = matrix.rowOf.get(id);
    if (row !== undefined) found.push(row);
  }
  const rows = Int32Array.from(found);
  const size = matrix.ids.length;
  const columns = new Float32Array(rows.length * matrix.dim);
  for (let d = 0; d < matrix.dim; d++) {
    const from = d * size;
    const to = d * rows.length;
    for (let i = 0; i < rows.length; i++)
      columns[to + i] = matrix.columns[from + (rows[i] as number)] as number;
  }
  const ids = found.map((row) => matrix.ids[row] as string);
  return { matrix: { ids, columns, scores: new Float64Array(ids.length) }, rows };
}

/** What a scan of whole columns reads: the rows' columns and their score buffer. */
type ColumnScan = Pick<VectorMatrix, "ids" | "columns" | "scores">;

/** Rows scored together: their scores (8 bytes each) stay in the L1/L2 cache while every column passes. */
const SCORE_BLOCK = 2048;

/**
 * Adds each query dimension's column, scaled, into the shared score buffer: a block of rows at a
 * time and eight columns per pass, so each score is loaded and stored once per eight multiply-adds.
 * Every score is still the sum 0 + d1 + d2 + ... in query-dimension order, to the last bit: the
 * passes only group the additions, they do not reorder them.
 */
function scoreAllRows(matrix: ColumnScan, query: SparseQuery): Float64Array {
  const { columns, scores } = matrix;
  const size = matrix.ids.length;
  const { dims, values } = query;
  if (dims.length === 0) scores.fill(0);
  for (let from = 0; from < size; from += SCORE_BLOCK) {
    const to = Math.min(size, from + SCORE_BLOCK);
    let k = 0;
    for (; k + 7 < dims.length; k += 8) {
      const w0 = values[k] as number;
      const w1 = values[k + 1] as number;
      const w2 = values[k + 2] as number;
      const w3 = values[k + 3] as number;
      const w4 = values[k + 4] as number;
      const w5 = values[k + 5] as number;
      const w6 = values[k + 6] as number;
      const w7 = values[k + 7] as number;
      const c0 = (dims[k] as number) * size;
      const c1 = (dims[k + 1] as number) * size;
      const c2 = (dims[k + 2] as number) * size;
      const c3 = (dims[k + 3] as number) * size;
      const c4 = (dims[k + 4] as number) * size;
      const c5 = (dims[k + 5] as number) * size;
      const c6 = (dims[k + 6] as number) * size;
      const c7 = (dims[k + 7] as number) * size;
      // The first pass starts each score at 0 instead of reading the buffer (no fill needed).
      const first = k === 0;
      for (let row = from; row < to; row++) {
        scores[row] =
          (first ? 0 : (scores[row] as number)) +
          (columns[c0 + row] as number) * w0 +
          (columns[c1 + row] as number) * w1 +
          (columns[c2 + row] as number) * w2 +
          (columns[c3 + row] as number) * w3 +
          (columns[c4 + row] as number) * w4 +
          (columns[c5 + row] as number) * w5 +
          (columns[c6 + row] as number) * w6 +
          (columns[c7 + row] as number) * w7;
      }
    }
    for (; k < dims.length; k++) {
      const w = values[k] as number;
      const c = (dims[k] as number) * size;
      const first = k === 0;
      for (let row = from; row < to; row++)
        scores[row] = (first ? 0 : (scores[row] as number)) + (columns[c + row] as number) * w;
    }
  }
  return scores;
}

function scoreRow(matrix: VectorMatrix, row: number, query: SparseQuery): number {
  const size = matrix.ids.length;
  let score = 0;
  for (let k = 0; k < query.dims.length; k++) {
    score += (matrix.columns[(query.dims[k] as number) * size + row] as number) * (query.values[k] as number);
  }
  return score;
}
