import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Tiktoken, TiktokenBPE, TiktokenEncoding } from "js-tiktoken/lite";
import { z } from "zod";
import { BpeTable, BpeTableEncoder, type EncodedPieces, readSplitPattern } from "./bpe-table.js";

export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";

const require = createRequire(import.meta.url);

/**
 * Two libraries, the same tokens (a unit test compares them): gpt-tokenizer encodes, counts and
 * decodes whole pre-tokenizer pieces (words, runs of punctuation), and loads its tables about three
 * times faster than js-tiktoken, which matters to every short CLI call (the bundled CLI reads the
 * same ranks from a ready-made table instead, see loadCounter). js-tiktoken is loaded only
 * to decode part of a piece (a cut inside a long word or a long run of CJK characters), because
 * gpt-tokenizer's decoder keeps an unfinished UTF-8 character from one call for the next.
 */
const isFunction = (value: unknown) => typeof value === "function";
const CounterSchema = z.object({
  encode: z.custom<(text: string, options: { disallowedSpecial: Set<string> }) => number[]>(isFunction),
  /** The same tokens as encode, counted without building the array (report contexts count a lot). */
  countTokens: z.custom<(text: string, options: { disallowedSpecial: Set<string> }) => number>(isFunction),
  /** Token ids one pre-tokenizer piece at a time: every yield ends on a character boundary. */
  encodeGenerator:
    z.custom<
      (text: string, options: { disallowedSpecial: Set<string> }) => Generator<number[], number, undefined>
    >(isFunction),
  decode: z.custom<(ids: Iterable<number>) => string>(isFunction),
  /** Decodes any run of tokens, part of a piece too, with no state kept between calls (the table's only). */
  decodeRun: z.custom<(ids: Iterable<number>) => string>(isFunction).optional(),
  /** Tokens with where each piece starts, in tokens and in characters (the bundled table's encoder only). */
  encodePieces: z.custom<(text: string) => EncodedPieces>(isFunction).optional(),
});
type Counter = z.infer<typeof CounterSchema>;

const counters = new Map<TiktokenEncoding, Counter>();
const decoders = new Map<TiktokenEncoding, Tiktoken>();

/** Special-token text such as "<|endoftext|>" in a document is plain text, never a control token. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function counter(encoding: TiktokenEncoding): Counter {
  let found = counters.get(encoding);
  if (!found) {
    found = loadCounter(encoding);
    counters.set(encoding, found);
  }
  return found;
}

/**
 * Where the bundled CLI keeps its rank tables (scripts/bundle-cli.mjs writes them beside it), as
 * seen from the CLI's own modules and from the library's (dist/src/util, two folders below the
 * package's dist); absent when running from sources.
 */
const BUNDLED_RANKS = [
  new URL("./bpe-ranks/", import.meta.url),
  new URL("../../cli/bpe-ranks/", import.meta.url),
];

const SplitPatternsSchema = z.object({
  O200K_TOKEN_SPLIT_REGEX: z.instanceof(RegExp),
  CL100K_TOKEN_SPLIT_REGEX: z.instanceof(RegExp),
});

/**
 * The encoding's pre-tokenizer pattern: saved beside its table (`<encoding>.split`, see
 * splitPatternText), else from gpt-tokenizer's module, which builds every encoding's pattern.
 */
function splitPattern(encoding: TiktokenEncoding, tableFile: URL): RegExp | undefined {
  const saved = new URL(`${encoding}.split`, tableFile);
  if (existsSync(saved)) {
    const pattern = readSplitPattern(readFileSync(saved, "utf8"));
    if (pattern) return pattern;
  }
  return splitPatternOfPackage(encoding);
}

/** The encoding's pre-tokenizer pattern, from gpt-tokenizer (a small module of its own). */
function splitPatternOfPackage(encoding: TiktokenEncoding): RegExp | undefined {
  const patterns = SplitPatternsSchema.parse(require("gpt-tokenizer/encodingParams/constants"));
  if (encoding === "o200k_base") return patterns.O200K_TOKEN_SPLIT_REGEX;
  if (encoding === "cl100k_base") return patterns.CL100K_TOKEN_SPLIT_REGEX;
  return undefined;
}

/**
 * The encoder over the rank table saved in `ranksDir` (src/util/bpe-table.ts: nothing to build, so
 * it is ready at once), or gpt-tokenizer's as the package ships it where no table is saved
 * (running from sources), which builds a map of every rank as it loads.
 */
export function loadCounter(encoding: TiktokenEncoding, ranksDir: URL | URL[] = BUNDLED_RANKS): Counter {
  const tableFile = [ranksDir]
    .flat()
    .map((dir) => new URL(`${encoding}.bpe`, dir))
    .find((file) => existsSync(file));
  const split = tableFile ? splitPattern(encoding, tableFile) : undefined;
  if (!split || !tableFile) return CounterSchema.parse(require(`gpt-tokenizer/encoding/${encoding}`));
  const encoder = new BpeTableEncoder(new BpeTable(readFileSync(tableFile)), split);
  return {
    encode: (text) => encoder.encode(text),
    countTokens: (text) => encoder.countTokens(text),
    encodeGenerator: (text) => encoder.encodeGenerator(text),
    decode: (ids) => encoder.decode(ids),
    encodePieces: (text) => encoder.encodePieces(text),
    decodeRun: (ids) => encoder.decode(ids),
  };
}

const SENTINEL_TEXT = "a";

/**
 * The text of any run of tokens, a cut inside a piece included (a character split by the cut
 * decodes to U+FFFD), a leading byte-order mark kept. The bundled table decodes so itself; from
 * sources js-tiktoken does (gpt-tokenizer keeps a split character for its next call), after a
 * sentinel token that keeps TextDecoder from dropping the mark.
 */
export function decodeRun(ids: number[], encoding: TiktokenEncoding = DEFAULT_ENCODING): string {
  const tokenizer = counter(encoding);
  if (tokenizer.decodeRun) return tokenizer.decodeRun(ids);
  const enc = encoder(encoding);
  const sentinel = enc.encode(SENTINEL_TEXT)[0]!;
  return enc.decode([sentinel, ...ids]).slice(SENTINEL_TEXT.length);
}

/** js-tiktoken's encoder (built once per process, only its own ranks loaded), for decoding inside a piece. */
export function encoder(encoding: TiktokenEncoding = DEFAULT_ENCODING): Tiktoken {
  let enc = decoders.get(encoding);
  if (!enc) {
    // Loaded here, not imported: most commands never cut inside a piece.
    const lite = require("js-tiktoken/lite") as typeof import("js-tiktoken/lite");
    enc = new lite.Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
    decoders.set(encoding, enc);
  }
  return enc;
}

/** The token ids of `text`, special-token text encoded as plain text. */
export function encodeTokens(text: string, encoding: TiktokenEncoding = DEFAULT_ENCODING): number[] {
  return counter(encoding).encode(text, PLAIN_TEXT);
}

/**
 * An upper bound of a text's token count that needs no tokenizer: every token of a byte-pair
 * encoding is at least one byte of UTF-8, so a text never has more tokens than bytes. Where the
 * bound already fits a budget, the exact count (and the tokenizer's load) can be skipped.
 */
export function tokenBound(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A run of letters (with their combining marks) that does not continue an English contraction. */
const WORD_START = /(?<![\p{L}\p{M}'])[\p{L}\p{M}]+/gu;

/**
 * A lower bound on the text's token count under either encoding, far cheaper than counting. Both
 * pre-tokenizers put letters in pieces that hold one run of letters, plus at most a contraction
 * after an apostrophe ("'s", "'ll"); so each run not right after an apostrophe starts a piece of
 * its own, and every piece is at least one token (digits and punctuation only add to that).
 */
export function tokenFloor(text: string): number {
  let pieces = 0;
  WORD_START.lastIndex = 0;
  while (WORD_START.exec(text) !== null) pieces += 1;
  return pieces;
}

/**
 * The token ids of `text` and the positions where its pre-tokenizer pieces start (the last entry is
 * the number of tokens): cutting there never splits a character. The bundled tokenizer also gives
 * each piece's character offset (`pieceChars`), which spares decoding to find where a cut falls.
 */
export function encodePieces(
  text: string,
  encoding: TiktokenEncoding = DEFAULT_ENCODING,
): { ids: number[]; pieceStarts: number[]; pieceChars?: number[] } {
  const tokenizer = counter(encoding);
  if (tokenizer.encodePieces) return tokenizer.encodePieces(text);
  const ids: number[] = [];
  const pieceStarts: number[] = [];
  for (const piece of tokenizer.encodeGenerator(text, PLAIN_TEXT)) {
    pieceStarts.push(ids.length);
    for (const id of piece) ids.push(id);
  }
  pieceStarts.push(ids.length);
  return { ids, pieceStarts };
}

/** The text of tokens that start and end on piece boundaries (see encodePieces): whole characters. */
export function decodeWholePieces(ids: number[], encoding: TiktokenEncoding = DEFAULT_ENCODING): string {
  return counter(encoding).decode(ids);
}

export function countTokens(text: string, encoding: TiktokenEncoding = DEFAULT_ENCODING): number {
  return counter(encoding).countTokens(text, PLAIN_TEXT);
}

/**
 * Keeps the longest prefix of `text` that fits in `maxTokens` and ends between two pre-tokenizer
 * pieces (a word with its leading space, a run of punctuation), so no word is cut in half; only a
 * first piece longer than the whole budget is cut inside.
 */
export function truncateToTokens(
  text: string,
  maxTokens: number,
  encoding: TiktokenEncoding = DEFAULT_ENCODING,
): string {
  const { ids, pieceStarts } = encodePieces(text, encoding);
  if (ids.length <= maxTokens) return text;
  const limit = Math.max(0, maxTokens);
  const end = lastAtOrBefore(pieceStarts, limit);
  if (end > 0) return decodeWholePieces(ids.slice(0, end), encoding);
  // A character split by the cut decodes to replacement characters: they are not the text's.
  const decoded = decodeRun(ids.slice(0, limit), encoding);
  return text.startsWith(decoded) ? decoded : decoded.replace(/\uFFFD+$/, "");
}

/** The largest value of the ascending `values` that is at most `limit`, or -1. */
export function lastAtOrBefore(values: readonly number[], limit: number): number {
  const index = lastIndexAtOrBefore(values, limit);
  return index < 0 ? -1 : values[index]!;
}

/** The index of the largest value of the ascending `values` that is at most `limit`, or -1. */
export function lastIndexAtOrBefore(values: readonly number[], limit: number): number {
  let lo = 0;
  let hi = values.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! <= limit) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
