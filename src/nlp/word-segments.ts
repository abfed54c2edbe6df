/**
 * The word-like segments Intl.Segmenter (word granularity) finds in a text, in order, with the
 * ASCII parts read by a scanner that applies the same Unicode word-break rules (UAX #29 as ICU
 * implements them) about fifteen times faster: segmenting was most of the cost of a report's or a
 * question's content words. The rest goes through the segmenter, a piece at a time.
 *
 * Why pieces can be segmented apart: no word-break rule joins across ASCII whitespace, except that
 * combining marks and format characters attach to the character before them (WB4). So the text is
 * cut only where whitespace is followed by a printable ASCII character, and each piece is
 * segmented alone: by the scanner when it is all ASCII (en and em dashes allowed), else by the
 * segmenter. A unit test compares
 * both with the segmenter on every short string over the ASCII classes and on mixed texts.
 */

/** Word-break classes of printable ASCII (everything else in a scanned piece is OTHER). */
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
/** "_" (ExtendNumLet): joins letters, digits and itself. */
const CONNECTOR = 3;
/** ":" (MidLetter): between two letters only. */
const MID_LETTER = 4;
/** "." and "'" (MidNumLet, Single_Quote): between two letters or two digits. */
const MID_EITHER = 5;
/** "," and ";" (MidNum): between two digits only. */
const MID_DIGIT = 6;

const CLASSES = asciiClasses();

/** Covers the dashes too (OTHER), so that no read falls outside the table. */
function asciiClasses(): Uint8Array {
  const classes = new Uint8Array(0x2015);
  for (let c = 65; c <= 90; c++) classes[c] = LETTER;
  for (let c = 97; c <= 122; c++) classes[c] = LETTER;
  for (let c = 48; c <= 57; c++) classes[c] = DIGIT;
  classes[95] = CONNECTOR;
  classes[58] = MID_LETTER;
  classes[46] = MID_EITHER;
  classes[39] = MID_EITHER;
  classes[44] = MID_DIGIT;
  classes[59] = MID_DIGIT;
  return classes;
}

function isAsciiWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function isPrintableAscii(code: number): boolean {
  return code > 32 && code < 127;
}

/** En and em dashes break words as "-" does (Word_Break Other); reports are full of them. */
function isDash(code: number): boolean {
  return code === 0x2013 || code === 0x2014;
}

/** Characters the scanner reads: printable ASCII, ASCII whitespace and the dashes. */
function isScanned(code: number): boolean {
  return code < 127 ? code > 32 || isAsciiWhitespace(code) : isDash(code);
}

/** The word-like segments of `text`, as `segmenter().segment(text)` marks them isWordLike. */
export function wordLikeSegments(text: string, segmenter: () => Intl.Segmenter): string[] {
  const out: string[] = [];
  let start = 0;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (i > start && isPrintableAscii(code) && isAsciiWhitespace(text.charCodeAt(i - 1))) {
      segmentPiece(text, start, i, ascii, segmenter, out);
      start = i;
      ascii = true;
    }
    if (!isScanned(code)) ascii = false;
  }
  if (start < text.length) segmentPiece(text, start, text.length, ascii, segmenter, out);
  return out;
}

function segmentPiece(
  text: string,
  start: number,
  end: number,
  ascii: boolean,
  segmenter: () => Intl.Segmenter,
  out: string[],
): void {
  if (ascii) {
    scanAscii(text, start, end, out);
    return;
  }
  for (const s of segmenter().segment(text.slice(start, end))) if (s.isWordLike) out.push(s.segment);
}

function classAt(text: string, at: number): number {
  return CLASSES[text.charCodeAt(at)] as number;
}

/**
 * Word-like runs of an ASCII piece: letters, digits and "_" join (WB5, WB8-WB10, WB13a/b); a
 * middle character joins two letters (":", ".", "'": WB6/7) or two digits (",", ";", ".", "'":
 * WB11/12). A run of "_" alone is word-like from two characters on, as ICU marks it.
 */
function scanAscii(text: string, start: number, end: number, out: string[]): void {
  let i = start;
  while (i < end) {
    const first = classAt(text, i);
    if (first !== LETTER && first !== DIGIT && first !== CONNECTOR) {
      i++;
      continue;
    }
    let wordLike = first !== CONNECTOR;
    let j = i + 1;
    while (j < end) {
      const here = classAt(text, j);
      if (here === LETTER || here === DIGIT || here === CONNECTOR) {
        if (here !== CONNECTOR) wordLike = true;
        j++;
        continue;
      }
      if (here === OTHER || j + 1 >= end) break;
      const before = classAt(text, j - 1);
      const after = classAt(text, j + 1);
      const betweenLetters = before === LETTER && after === LETTER && here !== MID_DIGIT;
      const betweenDigits = before === DIGIT && after === DIGIT && here !== MID_LETTER;
      if (!betweenLetters && !betweenDigits) break;
      j += 2;
    }
    if (wordLike || j - i >= 2) out.push(text.slice(i, j));
    i = j;
  }
}
