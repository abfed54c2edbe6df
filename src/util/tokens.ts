import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE, type TiktokenEncoding } from "js-tiktoken/lite";
import { countByPieces, encodeByPieces } from "./piece-encoder.js";

export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";

const encoders = new Map<TiktokenEncoding, Tiktoken>();

const require = createRequire(import.meta.url);

/**
 * Loading an encoding costs ~100 ms (more on a busy machine), so each one is built once per
 * process, and only its own ranks are loaded (the full js-tiktoken entry loads every encoding).
 */
export function encoder(encoding: TiktokenEncoding = DEFAULT_ENCODING): Tiktoken {
  let enc = encoders.get(encoding);
  if (!enc) {
    enc = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
    encoders.set(encoding, enc);
  }
  return enc;
}

export function countTokens(text: string, encoding: TiktokenEncoding = DEFAULT_ENCODING): number {
  return countByPieces(text, encoding);
}

/** Keeps the longest prefix of `text` that fits in `maxTokens`. */
export function truncateToTokens(
  text: string,
  maxTokens: number,
  encoding: TiktokenEncoding = DEFAULT_ENCODING,
): string {
  const enc = encoder(encoding);
  const ids = encodeByPieces(text, encoding);
  if (ids.length <= maxTokens) return text;
  return enc.decode(ids.slice(0, Math.max(0, maxTokens)));
}
