import { supportingSentence } from "./cited-sentence.js";

/**
 * What to mark in a passage: every match of some terms, exact character ranges (entity mentions),
 * or the sentence that supports an answer's claim (a citation's), the terms where none does.
 */
export type PassageHighlight =
  | { terms: string[] }
  | { ranges: Array<{ start: number; end: number }> }
  | { claim: string; terms: string[] };

export interface TextPiece {
  text: string;
  marked: boolean;
}

/** Splits text into marked and plain pieces, by character ranges or by every case-insensitive term match. */
export function highlightPieces(text: string, highlight: PassageHighlight | undefined): TextPiece[] {
  const ranges = highlight ? rangesOf(text, highlight) : [];
  const pieces: TextPiece[] = [];
  let at = 0;
  for (const { start, end } of mergeRanges(ranges)) {
    if (start > at) pieces.push({ text: text.slice(at, start), marked: false });
    pieces.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), marked: false });
  return pieces;
}

type Range = { start: number; end: number };

function rangesOf(text: string, highlight: PassageHighlight): Range[] {
  if ("ranges" in highlight) {
    return highlight.ranges.filter((r) => r.start >= 0 && r.end <= text.length && r.start < r.end);
  }
  if ("claim" in highlight) {
    const sentence = supportingSentence(text, highlight.claim);
    if (sentence) return [sentence];
  }
  const lower = text.toLowerCase();
  return highlight.terms.flatMap((term) => {
    const needle = term.toLowerCase();
    const found: Range[] = [];
    if (!needle) return found;
    for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
      found.push({ start: i, end: i + needle.length });
    }
    return found;
  });
}

function mergeRanges(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const merged: Range[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}
