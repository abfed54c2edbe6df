import type { TiktokenEncoding } from "js-tiktoken";
import type { ChunkRecord, SourceDocument } from "../types.js";
import { hashText } from "../util/hash.js";
import { TokenBoundaries } from "./token-boundaries.js";

export interface ChunkingOptions {
  /** Tokens per chunk, at most. */
  size: number;
  /** Tokens shared by consecutive chunks. */
  overlap: number;
  encoding: TiktokenEncoding;
}

/**
 * Splits a document into overlapping token windows. Every chunk records exact character offsets
 * (`doc.text.slice(start, end) === chunk.text`), and windows never cut inside a character.
 */
export function chunkDocument(doc: SourceDocument, opts: ChunkingOptions): ChunkRecord[] {
  validateChunking(opts);
  const boundaries = new TokenBoundaries(opts.encoding, doc.text);
  const windows = tokenWindows(boundaries, opts);
  const offsets = charOffsets(boundaries, windows);
  const occurrences = new Map<string, number>();
  return windows.map(([first, last], index) => {
    const start = offsets.get(first)!;
    const end = offsets.get(last)!;
    const text = doc.text.slice(start, end);
    const occurrence = occurrences.get(text) ?? 0;
    occurrences.set(text, occurrence + 1);
    return {
      id: chunkId(doc.id, text, occurrence),
      docId: doc.id,
      index,
      text,
      tokens: last - first,
      start,
      end,
    };
  });
}

export function validateChunking(opts: ChunkingOptions): void {
  if (!Number.isInteger(opts.size) || opts.size < 1) {
    throw new Error(`Chunk size must be a positive whole number of tokens, got ${opts.size}`);
  }
  if (!Number.isInteger(opts.overlap) || opts.overlap < 0 || opts.overlap >= opts.size) {
    throw new Error(
      `Chunk overlap (${opts.overlap}) must be at least 0 and smaller than the chunk size (${opts.size}); ` +
        "lower chunking.overlap or raise chunking.size",
    );
  }
}

/**
 * Content-derived, so a chunk that did not change keeps its id (and its cached extraction) when
 * text elsewhere in the document is edited; the occurrence index separates repeated passages.
 */
export function chunkId(docId: string, text: string, occurrence: number): string {
  return `chunk-${hashText(`${docId}\n${occurrence}\n${text}`)}`;
}

/** [first, last) token ranges of at most `size` tokens, each starting `overlap` before the last ended. */
function tokenWindows(boundaries: TokenBoundaries, { size, overlap }: ChunkingOptions): [number, number][] {
  const total = boundaries.ids.length;
  const windows: [number, number][] = [];
  let first = 0;
  while (first < total) {
    const last = first + size >= total ? total : boundaries.snap(first + size, first);
    windows.push([first, last]);
    if (last >= total) break;
    first = overlap === 0 ? last : boundaries.snap(last - overlap, first);
  }
  return windows;
}

function charOffsets(boundaries: TokenBoundaries, windows: [number, number][]): Map<number, number> {
  const positions = [...new Set(windows.flat())].sort((a, b) => a - b);
  return new Map(positions.map((position) => [position, boundaries.charOffset(position)]));
}
