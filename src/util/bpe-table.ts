import { BoundedMemo } from "./bounded-memo.js";
import { bytePairMerge } from "./bpe-merge.js";

/**
 * A byte-pair encoder that reads its ranks straight from one binary table (built once, at bundle
 * time, by `buildBpeTable`), so loading it builds nothing: gpt-tokenizer parses 200,000 ranks and
 * puts each in a Map first, about a fifth of a second that every command counting tokens paid for
 * before its first chunk (an index run, before its first model request). The tokens are
 * tiktoken's: the same pre-tokenizer pieces, each looked up whole, else merged pair by pair by
 * lowest rank (a unit test compares them with gpt-tokenizer and js-tiktoken).
 *
 * Layout, in 32-bit words of the machine's byte order (the table is built where it is used):
 * a header [MAGIC, rank count n, slot count (a power of two), blob bytes], n + 1 offsets of each
 * rank's bytes in the blob (an unused rank has none), the slots (rank + 1 at the FNV-1a hash of
 * its bytes, probing linearly; 0 is empty), then the blob of every rank's bytes.
 */
const MAGIC = 0x4250_4b47;
const HEADER_WORDS = 4;
/** Pieces remembered, looked up whole or merged pair by pair (gpt-tokenizer keeps as many merges). */
const REMEMBERED_PIECES = 100_000;

/** Ranks as gpt-tokenizer ships them: a token's text, or its bytes when they are not UTF-8. */
export type BpeRanks = readonly (string | readonly number[] | undefined)[];

const FNV_OFFSET = 0x811c_9dc5;
const FNV_PRIME = 0x0100_0193;

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i += 1) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}

/**
 * The pre-tokenizer's pattern as saved beside its table (flags on the first line, the source after
 * it): gpt-tokenizer's module builds the patterns of three encodings as it loads, Unicode property
 * classes that cost about 10 ms of start-up before the first chunk, where a run uses one.
 */
export function splitPatternText(pattern: RegExp): string {
  return `${pattern.flags}\n${pattern.source}`;
}

/** The pattern `splitPatternText` saved, or undefined when the text is not one. */
export function readSplitPattern(text: string): RegExp | undefined {
  const newline = text.indexOf("\n");
  const flags = text.slice(0, newline);
  if (newline < 0 || !/^[dgimsuvy]*$/.test(flags)) return undefined;
  try {
    return new RegExp(text.slice(newline + 1), flags);
  } catch {
    return undefined;
  }
}

/** The table of `ranks` (index = rank), for `BpeTable`. */
export function buildBpeTable(ranks: BpeRanks): Uint8Array {
  const utf8 = new TextEncoder();
  const tokens = Array.from({ length: ranks.length }, (_, rank) => {
    const token = ranks[rank];
    if (token === undefined) return new Uint8Array(0);
    return typeof token === "string" ? utf8.encode(token) : Uint8Array.from(token);
  });
  let slots = 1;
  while (slots < tokens.length * 2) slots *= 2;
  const blobBytes = tokens.reduce((sum, token) => sum + token.length, 0);
  const words = HEADER_WORDS + tokens.length + 1 + slots;
  const buffer = new ArrayBuffer(words * 4 + blobBytes);
  new Uint32Array(buffer, 0, HEADER_WORDS).set([MAGIC, tokens.length, slots, blobBytes]);
  const offsets = new Uint32Array(buffer, HEADER_WORDS * 4, tokens.length + 1);
  const table = new Uint32Array(buffer, (HEADER_WORDS + tokens.length + 1) * 4, slots);
  const blob = new Uint8Array(buffer, words * 4, blobBytes);
  let at = 0;
  for (const [rank, token] of tokens.entries()) {
    offsets[rank] = at;
    blob.set(token, at);
    at += token.length;
    if (token.length === 0) continue;
    let slot = hashBytes(token, 0, token.length) & (slots - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (slots - 1);
    table[slot] = rank + 1;
  }
  offsets[tokens.length] = at;
  return new Uint8Array(buffer);
}

/** A text's tokens with the token index and character offset where each pre-tokenizer piece starts. */
export interface EncodedPieces {
  ids: number[];
  /** Token index of each piece's start, ascending; the last entry is the number of tokens. */
  pieceStarts: number[];
  /** Character offset of each piece's start; the last entry is the text's length. */
  pieceChars: number[];
}

/** Rank lookups by bytes, and each rank's bytes, over a table from `buildBpeTable`. */
export class BpeTable {
  private readonly offsets: Uint32Array;
  private readonly slots: Uint32Array;
  private readonly blob: Uint8Array;
  private readonly mask: number;

  constructor(data: Uint8Array) {
    // Word views need a 4-byte aligned start; a small Buffer may sit anywhere in Node's pool.
    const bytes = data.byteOffset % 4 === 0 ? data : data.slice();
    const [magic, ranks = 0, slots = 0, blobBytes = 0] = new Uint32Array(bytes.buffer, bytes.byteOffset, 4);
    const words = HEADER_WORDS + ranks + 1 + slots;
    if (magic !== MAGIC || bytes.length !== words * 4 + blobBytes) {
      throw new Error("Not a byte-pair rank table (rebuild the CLI with npm run build)");
    }
    this.offsets = new Uint32Array(bytes.buffer, bytes.byteOffset + HEADER_WORDS * 4, ranks + 1);
    this.slots = new Uint32Array(bytes.buffer, bytes.byteOffset + (HEADER_WORDS + ranks + 1) * 4, slots);
    this.blob = bytes.subarray(words * 4);
    this.mask = slots - 1;
  }

  /** The rank of bytes[start, end), or -1 when no token has exactly these bytes. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    for (let slot = hashBytes(bytes, start, end) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return -1;
      const rank = entry - 1;
      const from = this.offsets[rank] as number;
      if (
        (this.offsets[rank + 1] as number) - from === length &&
        this.sameBytes(from, bytes, start, length)
      ) {
        return rank;
      }
    }
  }

  bytesOf(rank: number): Uint8Array {
    const from = this.offsets[rank];
    const to = this.offsets[rank + 1];
    if (from === undefined || to === undefined || to === from) throw new Error(`Unknown token ${rank}`);
    return this.blob.subarray(from, to);
  }

  private sameBytes(from: number, bytes: Uint8Array, start: number, length: number): boolean {
    for (let i = 0; i < length; i += 1) if (this.blob[from + i] !== bytes[start + i]) return false;
    return true;
  }
}

/**
 * Encodes, counts and decodes text over a `BpeTable` and an encoding's pre-tokenizer pattern.
 * Special-token text is always plain text here (as kgrag encodes every document).
 */
export class BpeTableEncoder {
  private readonly utf8 = new TextEncoder();
  // BOM-keeping: a chunk's text is measured by decoding, and a dropped U+FEFF would shift offsets.
  private readonly text = new TextDecoder("utf-8", { ignoreBOM: true });
  private scratch = new Uint8Array(1024);
  private readonly merged = new BoundedMemo<string, number[]>(REMEMBERED_PIECES);
  // A plain Map rather than a BoundedMemo: this lookup runs once per piece of every text encoded.
  private readonly wholeRanks = new Map<string, number>();
  private readonly rankOf = (bytes: Uint8Array, start: number, end: number) =>
    this.table.rankOf(bytes, start, end);

  constructor(
    private readonly table: BpeTable,
    /** The encoding's pre-tokenizer pattern (global and unicode flags). */
    private readonly split: RegExp,
  ) {}

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const [piece] of text.matchAll(this.split)) {
      const whole = this.wholeRank(piece);
      if (whole >= 0) ids.push(whole);
      else for (const id of this.mergedPiece(piece)) ids.push(id);
    }
    return ids;
  }

  countTokens(text: string): number {
    let count = 0;
    for (const [piece] of text.matchAll(this.split)) {
      count += this.wholeRank(piece) >= 0 ? 1 : this.mergedPiece(piece).length;
    }
    return count;
  }

  /**
   * Every token id, where each pre-tokenizer piece starts (token index) and at which character:
   * the last entry of each is the total. Written straight into three arrays, with no array per
   * piece, for chunking whole documents.
   */
  encodePieces(text: string): EncodedPieces {
    const ids: number[] = [];
    const pieceStarts: number[] = [];
    const pieceChars: number[] = [];
    for (const match of text.matchAll(this.split)) {
      const piece = match[0];
      pieceStarts.push(ids.length);
      pieceChars.push(match.index);
      const whole = this.wholeRank(piece);
      if (whole >= 0) ids.push(whole);
      else for (const id of this.mergedPiece(piece)) ids.push(id);
    }
    pieceStarts.push(ids.length);
    pieceChars.push(text.length);
    return { ids, pieceStarts, pieceChars };
  }

  /** Token ids one pre-tokenizer piece at a time; returns the last piece's count, as gpt-tokenizer does. */
  *encodeGenerator(text: string): Generator<number[], number, undefined> {
    let last = 0;
    for (const [piece] of text.matchAll(this.split)) {
      const whole = this.wholeRank(piece);
      const ids = whole >= 0 ? [whole] : this.mergedPiece(piece);
      last = ids.length;
      yield ids;
    }
    return last;
  }

  decode(ids: Iterable<number>): string {
    const parts: Uint8Array[] = [];
    let length = 0;
    for (const id of ids) {
      const bytes = this.table.bytesOf(id);
      parts.push(bytes);
      length += bytes.length;
    }
    const joined = new Uint8Array(length);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    return this.text.decode(joined);
  }

  /** The piece's rank when one token is the whole piece, else -1 (remembered: words recur). */
  private wholeRank(piece: string): number {
    let rank = this.wholeRanks.get(piece);
    if (rank === undefined) {
      const length = this.toUtf8(piece);
      rank = this.table.rankOf(this.scratch, 0, length);
      if (this.wholeRanks.size >= REMEMBERED_PIECES) this.wholeRanks.clear();
      this.wholeRanks.set(piece, rank);
    }
    return rank;
  }

  private mergedPiece(piece: string): number[] {
    return this.merged.get(piece, () => bytePairMerge(this.utf8.encode(piece), this.rankOf));
  }

  /** The piece's UTF-8 in the scratch buffer; returns its length. */
  private toUtf8(piece: string): number {
    // A UTF-16 unit never takes more than three bytes of UTF-8.
    if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3);
    return this.utf8.encodeInto(piece, this.scratch).written;
  }
}
