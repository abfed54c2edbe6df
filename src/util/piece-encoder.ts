import { createRequire } from "node:module";
import type { TiktokenEncoding } from "js-tiktoken";
import { z } from "zod";
import { encoder } from "./tokens.js";

/** Memoised pieces per encoding; cleared when full, so memory stays bounded on huge corpora. */
const MAX_CACHED_PIECES = 200_000;

const RanksSchema = z.object({ pat_str: z.string() });
const require = createRequire(import.meta.url);

interface PieceEncoder {
  pattern: RegExp;
  cache: Map<string, number[]>;
}
const pieceEncoders = new Map<TiktokenEncoding, PieceEncoder>();

/**
 * The same tokens as `encoder(encoding).encode(text)`, several times faster on real text.
 * js-tiktoken splits text with the encoding's pattern and runs byte-pair merging on each piece;
 * words repeat, so each distinct piece is merged once and remembered. Special-token text such as
 * "<|endoftext|>" is treated as plain text.
 */
export function encodeByPieces(text: string, encoding: TiktokenEncoding): number[] {
  const ids: number[] = [];
  for (const piece of piecesOf(text, encoding)) {
    for (const id of pieceTokens(piece, encoding)) ids.push(id);
  }
  return ids;
}

/** `encodeByPieces(text, encoding).length` without building the token array. */
export function countByPieces(text: string, encoding: TiktokenEncoding): number {
  let count = 0;
  for (const piece of piecesOf(text, encoding)) count += pieceTokens(piece, encoding).length;
  return count;
}

/** The encoding's pieces of the text, one at a time: a long text never holds all of them at once. */
function* piecesOf(text: string, encoding: TiktokenEncoding): Generator<string> {
  for (const [piece] of text.matchAll(pieceEncoder(encoding).pattern)) yield piece;
}

function pieceTokens(piece: string, encoding: TiktokenEncoding): number[] {
  const { cache } = pieceEncoder(encoding);
  let tokens = cache.get(piece);
  if (!tokens) {
    tokens = encoder(encoding).encode(piece, [], []);
    if (cache.size >= MAX_CACHED_PIECES) cache.clear();
    cache.set(piece, tokens);
  }
  return tokens;
}

function pieceEncoder(encoding: TiktokenEncoding): PieceEncoder {
  let found = pieceEncoders.get(encoding);
  if (!found) {
    // The pattern ships with the encoding's ranks; loaded on first use, since they are megabytes.
    const ranks = RanksSchema.parse(require(`js-tiktoken/ranks/${encoding}`));
    found = { pattern: new RegExp(ranks.pat_str, "gu"), cache: new Map() };
    pieceEncoders.set(encoding, found);
  }
  return found;
}
