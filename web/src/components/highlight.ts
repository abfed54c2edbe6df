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

/** What an excerpt keeps of the text before its first mark: enough to read the mark in context. */
const EXCERPT_LEAD_CHARS = 60;
/** Where an excerpt may start: after a space or a (Latin or CJK) punctuation mark. */
const EXCERPT_BREAK = /[\s,.;:!?，。、；：！？]/;

/**
 * The passage from a little before its first marked span on (`…` in front when cut), with the
 * marks as ranges in the excerpt: a preview clamped to a few lines then shows the mention, which
 * in a long passage would otherwise lie past what the preview shows.
 */
export function excerptAroundMark(
  text: string,
  highlight: PassageHighlight | undefined,
): { text: string; highlight?: PassageHighlight } {
  const marks = mergeRanges(highlight ? rangesOf(text, highlight) : []);
  const first = marks[0];
  if (!first || first.start <= EXCERPT_LEAD_CHARS) return { text, highlight };
  const earliest = first.start - EXCERPT_LEAD_CHARS;
  const breakAt = text.slice(earliest, first.start).search(EXCERPT_BREAK);
  let start = breakAt < 0 ? earliest : earliest + breakAt + 1;
  while (start < first.start && /\s/.test(text.charAt(start))) start += 1;
  const prefix = "…";
  const shift = prefix.length - start;
  const ranges = marks.map((range) => ({ start: range.start + shift, end: range.end + shift }));
  return { text: prefix + text.slice(start), highlight: { ranges } };
}

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
