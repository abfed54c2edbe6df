import { getEncoding, type Tiktoken, type TiktokenEncoding } from "js-tiktoken";
import { countByPieces, encodeByPieces } from "./piece-encoder.js";

export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";

const encoders = new Map<TiktokenEncoding, Tiktoken>();

/** Loading an encoding costs ~100 ms, so each one is built once per process. */
export function encoder(encoding: TiktokenEncoding = DEFAULT_ENCODING): Tiktoken {
  let enc = encoders.get(encoding);
  if (!enc) {
    enc = getEncoding(encoding);
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
