/**
 * How a vector is stored as bytes (SQLite's `vectors.vector`), in one of two exact forms told
 * apart by length (the row's dimension is stored beside it):
 *
 * - dense: its `dim` Float32 values, `dim` x 4 bytes (every row written before schema 8);
 * - sparse: a bitmap of the dimensions whose Float32 value is not all-zero bits (bit d % 8 of byte
 *   d / 8, padded to whole 32-bit words), then those values in dimension order.
 *
 * A vector takes the sparse form only when it is shorter, so a blob of `dim` x 4 bytes is always
 * dense. The hashing embedder's vectors of short texts (relationships, entities) have a few hundred
 * non-zero dimensions of 512 at most: a third of the bytes or less to write, log and read again.
 * Both forms give back the same Float32 values to the last bit (a -0 is a value, kept as such).
 * Values are in the platform's byte order, as Float32Array writes them (little-endian in practice).
 */

/** Bytes of the sparse form's bitmap for `dim` dimensions (whole 32-bit words). */
export function sparseMaskBytes(dim: number): number {
  return Math.ceil(dim / 32) * 4;
}

/** Encodes vectors of one dimension, reusing its scratch arrays from vector to vector. */
export class VectorBlobEncoder {
  private readonly values: Float32Array;
  private readonly bits: Uint32Array;
  /** The sparse form is built here (bitmap words, then values), then copied out at its length. */
  private readonly sparse: Uint32Array;
  private readonly mask: Uint8Array;
  private readonly maskWords: number;

  constructor(readonly dim: number) {
    this.values = new Float32Array(dim);
    this.bits = new Uint32Array(this.values.buffer);
    this.maskWords = sparseMaskBytes(dim) / 4;
    this.sparse = new Uint32Array(this.maskWords + dim);
    this.mask = new Uint8Array(this.sparse.buffer, 0, this.maskWords * 4);
  }

  /** The shorter exact form of the vector (`dim` numbers, each stored as Float32). */
  encode(vector: ArrayLike<number>): Buffer {
    if (vector.length !== this.dim) {
      throw new Error(`Cannot store a vector of ${vector.length} values as ${this.dim} dimensions.`);
    }
    this.values.set(vector);
    const { bits, sparse, mask, maskWords, dim } = this;
    mask.fill(0);
    let count = 0;
    for (let d = 0; d < dim; d++) {
      const word = bits[d] as number;
      if (word === 0) continue;
      mask[d >>> 3] = (mask[d >>> 3] as number) | (1 << (d & 7));
      sparse[maskWords + count] = word;
      count++;
    }
    const sparseBytes = (maskWords + count) * 4;
    const form =
      sparseBytes < dim * 4
        ? new Uint8Array(sparse.buffer, 0, sparseBytes)
        : new Uint8Array(this.values.buffer);
    // A copy of its own: the caller may keep it while the next vector is encoded.
    const blob = Buffer.allocUnsafe(form.byteLength);
    blob.set(form);
    return blob;
  }
}

/** Whether a stored blob is a valid encoding of a `dim`-dimension vector (either form). */
export function isVectorBlob(blob: Uint8Array, dim: number): boolean {
  if (blob.byteLength === dim * 4) return true;
  return sparseValueCount(blob, dim) !== undefined;
}

/** The number of values the sparse blob's bitmap announces, if its length agrees with it. */
function sparseValueCount(blob: Uint8Array, dim: number): number | undefined {
  const maskBytes = sparseMaskBytes(dim);
  if (blob.byteLength < maskBytes || blob.byteLength >= dim * 4) return undefined;
  let count = 0;
  for (let i = 0; i < maskBytes; i++) {
    const byte = blob[i] as number;
    // A bit past the last dimension would be a value with no place.
    const inRange = dim - i * 8;
    if (byte !== 0 && inRange < 8 && (inRange <= 0 || byte >>> inRange !== 0)) return undefined;
    count += BIT_COUNT[byte] as number;
  }
  return blob.byteLength === maskBytes + count * 4 ? count : undefined;
}

const BIT_COUNT = Uint8Array.from({ length: 256 }, (_, byte) => {
  let count = 0;
  for (let b = byte; b !== 0; b >>>= 1) count += b & 1;
  return count;
});

/** Aligned scratch for a sparse blob's values (SQLite blobs need not be 4-byte aligned). */
let scratch = new Uint32Array(512);

/**
 * Writes the blob's `dim` Float32 values into `target` from `offset`. Throws when the blob is
 * neither form of a `dim`-dimension vector.
 */
export function decodeVectorInto(
  blob: Uint8Array,
  dim: number,
  target: Float32Array,
  offset = 0,
  id = "",
): void {
  if (blob.byteLength === dim * 4) {
    new Uint8Array(target.buffer, target.byteOffset + offset * 4, dim * 4).set(blob);
    return;
  }
  const count = sparseValueCount(blob, dim);
  if (count === undefined) {
    throw new Error(
      `Vector${id ? ` "${id}"` : ""} is stored in ${blob.byteLength} bytes, which is no encoding of ${dim} dimensions.`,
    );
  }
  const maskBytes = sparseMaskBytes(dim);
  if (scratch.length < count) scratch = new Uint32Array(Math.max(count, scratch.length * 2));
  const values = scratch;
  new Uint8Array(values.buffer, 0, count * 4).set(blob.subarray(maskBytes, maskBytes + count * 4));
  const out = new Uint32Array(target.buffer, target.byteOffset + offset * 4, dim);
  out.fill(0);
  let next = 0;
  for (let i = 0; i < maskBytes; i++) {
    let byte = blob[i] as number;
    while (byte !== 0) {
      const bit = 31 - Math.clz32(byte & -byte);
      out[i * 8 + bit] = values[next++] as number;
      byte &= byte - 1;
    }
  }
}

/** The blob's `dim` values in a Float32Array of their own (see decodeVectorInto). */
export function decodeVector(blob: Uint8Array, dim: number, id = ""): Float32Array {
  const vector = new Float32Array(dim);
  decodeVectorInto(blob, dim, vector, 0, id);
  return vector;
}
