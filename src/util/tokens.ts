import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE, type TiktokenEncoding } from "js-tiktoken/lite";
import { z } from "zod";

export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";

const require = createRequire(import.meta.url);

/**
 * Two libraries, the same tokens (a unit test compares them): gpt-tokenizer encodes and counts, and
 * loads its tables about three times faster than js-tiktoken, which matters to every short CLI
 * call; js-tiktoken decodes, because gpt-tokenizer's decoder keeps an unfinished UTF-8 character
 * from one call for the next, while cutting text at token boundaries needs each decode on its own.
 */
const CounterSchema = z.object({
  encode: z.custom<(text: string, options: { disallowedSpecial: Set<string> }) => number[]>(
    (value) => typeof value === "function",
  ),
  /** The same tokens as encode, counted without building the array (report contexts count a lot). */
  countTokens: z.custom<(text: string, options: { disallowedSpecial: Set<string> }) => number>(
    (value) => typeof value === "function",
  ),
});
type Counter = z.infer<typeof CounterSchema>;

const counters = new Map<TiktokenEncoding, Counter>();
const decoders = new Map<TiktokenEncoding, Tiktoken>();

/** Special-token text such as "<|endoftext|>" in a document is plain text, never a control token. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function counter(encoding: TiktokenEncoding): Counter {
  let found = counters.get(encoding);
  if (!found) {
    found = CounterSchema.parse(require(`gpt-tokenizer/encoding/${encoding}`));
    counters.set(encoding, found);
  }
  return found;
}

/** js-tiktoken's encoder (built once per process, only its own ranks loaded), for decoding. */
export function encoder(encoding: TiktokenEncoding = DEFAULT_ENCODING): Tiktoken {
  let enc = decoders.get(encoding);
  if (!enc) {
    enc = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
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

export function countTokens(text: string, encoding: TiktokenEncoding = DEFAULT_ENCODING): number {
  return counter(encoding).countTokens(text, PLAIN_TEXT);
}

/** Keeps the longest prefix of `text` that fits in `maxTokens`. */
export function truncateToTokens(
  text: string,
  maxTokens: number,
  encoding: TiktokenEncoding = DEFAULT_ENCODING,
): string {
  const ids = encodeTokens(text, encoding);
  if (ids.length <= maxTokens) return text;
  return encoder(encoding).decode(ids.slice(0, Math.max(0, maxTokens)));
}
