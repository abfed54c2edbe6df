/**
 * How an HNSW file's keys stand for the vectors table's rowids.
 *
 * usearch keeps a key -> slot table that it rebuilds whenever a file is mapped or loaded: open
 * addressing, linear probing, the key itself as the hash and the low bits as the slot. A
 * namespace's rowids come in runs interleaved with the other namespaces' rows, and runs that lie
 * a power of two apart land on the same slots, so the probes grow with the file: mapping the
 * entities file of 1.08M vectors took 5.8 s of CPU with rowids as keys, 0.17 s with the
 * low 32 bits mixed (measured on that file's own rowids).
 * - `rowid`: the key is the rowid (files saved before the mixing; still read and extended).
 * - `mixed`: the key is the rowid with its low 32 bits put through a bijective mix.
 * A file's name says which (see indexFileName): a manifest rewritten by an older build, which
 * knows no such field, cannot lose it.
 */
export type AnnKeyEncoding = "rowid" | "mixed";

/** What every file saved from now on uses, unless it extends a file of the other kind. */
export const NEW_FILE_KEYS: AnnKeyEncoding = "mixed";

const MIXED_SUFFIX = ".mixed.usearch";

/** The name of a new index file of the namespace (unique by its random part). */
export function indexFileName(prefix: string, random: string, encoding: AnnKeyEncoding): string {
  return `${prefix}-${random}${encoding === "mixed" ? MIXED_SUFFIX : ".usearch"}`;
}

/** The key encoding of an index file, from its name. */
export function keysOfFile(file: string): AnnKeyEncoding {
  return file.endsWith(MIXED_SUFFIX) ? "mixed" : "rowid";
}

const LOW_BITS = 2 ** 32;

/** A bijection of 32-bit integers whose output bits all depend on every input bit (lowbias32). */
function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** mix32's inverse: each step undone in reverse order. */
function unmix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x43021123);
  x ^= (x >>> 15) ^ (x >>> 30);
  x = Math.imul(x, 0x1d69e2a5);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Applies `low` to the low 32 bits of a non-negative safe integer, keeping the high bits. */
function withLowBits(value: number, low: (bits: number) => number): number {
  const high = Math.floor(value / LOW_BITS);
  return high * LOW_BITS + low(value % LOW_BITS);
}

/** The key a file of this encoding holds for a rowid. */
export function fileKey(rowid: number, encoding: AnnKeyEncoding): bigint {
  return BigInt(encoding === "rowid" ? rowid : withLowBits(rowid, mix32));
}

/** The rowid a key of a file of this encoding stands for. */
export function rowidOfKey(key: bigint | number, encoding: AnnKeyEncoding): number {
  const value = Number(key);
  return encoding === "rowid" ? value : withLowBits(value, unmix32);
}
