/**
 * Which line breaks end a sentence and which only wrap a paragraph. Most .txt and .md files wrap
 * lines at about 80 columns, so a line break alone says nothing: a sentence ends at a blank line,
 * at a markdown block (heading, list item, table row...), after a title line, or at sentence-final
 * punctuation (which the sentence splitters see as before).
 */

/** A line opening a block: heading, list item, table row, quote, fence, rule or setext underline. */
const OPENS_BLOCK =
  /^ {0,3}(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|\||>|```|~~~|(?:[-=_*][ \t]*){3,}$)/;

/** Block lines nothing wraps onto (a list item's text may, so it is not one). Each also opens a block. */
const STANDS_ALONE = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|\||```|~~~|(?:[-=_*][ \t]*){3,}$)/;

/** Wrapped prose lines are wider than this; a title ("Kettle Works", "澄州城市简介") is not. */
const TITLE_MAX_COLUMNS = 30;

/**
 * A sentence-ending line this much narrower than its block's wrap width ends a paragraph; a wider
 * one is a full wrapped line, so the short line after it still belongs to the text.
 */
const PARAGRAPH_END_SHARE = 0.8;

/** Sentence-final punctuation, then any closing quotes or brackets. */
const ENDS_SENTENCE = /[.!?。！？]["'”’)）\]]*$/u;

/** Endings that carry a sentence on to the next line: a comma, a dash, "and", "of"... */
const CONTINUES = /(?:[,;:(/&\-–—，、；：（]|\b(?:a|an|and|at|by|for|from|in|of|on|or|the|to|with))$/u;

/** Chinese and Japanese punctuation and full-width forms: never a space beside them. */
const CJK_PUNCT = "[\\u3000-\\u303f\\uff00-\\uffef]";
/** Characters written without spaces between them (Chinese and Japanese), and their punctuation. */
const CJK = `(?:[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]|${CJK_PUNCT})`;
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** Positions of the "\n" characters of `text` that only wrap a paragraph, in order. */
export function softLineBreaks(text: string): number[] {
  const lines = text.split("\n");
  const widths = blockWidths(lines);
  const soft: number[] = [];
  let at = -1;
  // The text's start counts as a break: a title may open it.
  let afterBreak = true;
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] ?? "";
    at += line.length + 1;
    const wraps = wrapsOn(line, lines[i + 1] ?? "", afterBreak);
    if (wraps) soft.push(at);
    // A paragraph's short last line breaks like a hard break does, so a heading after it is still seen.
    afterBreak = !wraps || endsParagraph(line, widths[i] ?? 0);
  }
  return soft;
}

/** A block with no wrapped line (wrap width 0) is one paragraph per line: every sentence end ends one. */
function endsParagraph(line: string, wrapWidth: number): boolean {
  const text = line.trim();
  return ENDS_SENTENCE.test(text) && (wrapWidth === 0 || columns(text) < PARAGRAPH_END_SHARE * wrapWidth);
}

/**
 * For each line, the wrap width of its block (the lines between blank lines): the widest line that
 * runs on mid-sentence and is wider than a title. Text written one paragraph per line has none.
 */
function blockWidths(lines: string[]): number[] {
  const widths = lines.map((line) => wrappedWidth(line.trim()));
  let start = 0;
  for (let end = 0; end <= lines.length; end++) {
    if (end < lines.length && (lines[end] ?? "").trim() !== "") continue;
    const widest = widths.slice(start, end).reduce((max, w) => Math.max(max, w), 0);
    widths.fill(widest, start, end);
    start = end + 1;
  }
  return widths;
}

function wrappedWidth(text: string): number {
  const width = columns(text);
  return width > TITLE_MAX_COLUMNS && !ENDS_SENTENCE.test(text) ? width : 0;
}

function wrapsOn(line: string, next: string, afterBreak: boolean): boolean {
  if (line.trim() === "" || next.trim() === "") return false;
  if (STANDS_ALONE.test(line) || OPENS_BLOCK.test(next)) return false;
  // A short line standing on its own is a title, unless the next line plainly carries on from it.
  return !(afterBreak && isTitleLike(line) && !/^\s*\p{Ll}/u.test(next));
}

/** Short, not lower-case at the start, and ending neither a sentence (the splitters see to that) nor mid-clause. */
export function isTitleLike(line: string): boolean {
  const text = line.trim();
  if (columns(text) > TITLE_MAX_COLUMNS || /^\p{Ll}/u.test(text)) return false;
  return !CONTINUES.test(text) && !ENDS_SENTENCE.test(text);
}

/** Whether the line opens a markdown block: a heading, list item, table row, quote, fence or rule. */
export function opensBlock(line: string): boolean {
  return OPENS_BLOCK.test(line);
}

/** Display width: Chinese, Japanese and Korean characters take two columns. */
function columns(text: string): number {
  let width = 0;
  for (const char of text) width += WIDE.test(char) ? 2 : 1;
  return width;
}

/**
 * The text as the sentence splitters should read it: every wrapping line break (with a "\r"
 * before it) becomes a space. Same length, so offsets found in it are offsets in `text`.
 * Idempotent: the line breaks left all end sentences.
 */
export function unwrapLines(text: string): string {
  const soft = softLineBreaks(text);
  if (soft.length === 0) return text;
  const chars = text.split("");
  for (const at of soft) {
    chars[at] = " ";
    if (chars[at - 1] === "\r") chars[at - 1] = " ";
  }
  return chars.join("");
}

const BREAK = "[ \\t\\r]*\\n[ \\t]*";
/**
 * A line break that joins its lines without a space: between two Chinese or Japanese characters,
 * or beside their punctuation ("（\nVessen"). Between a Chinese character and a Latin word it is a space.
 */
const CJK_LINE_BREAK = new RegExp(
  `(?<=${CJK})${BREAK}(?=${CJK})|(?<=${CJK_PUNCT})${BREAK}(?=\\S)|(?<=\\S)${BREAK}(?=${CJK_PUNCT})`,
  "gu",
);

/** Line breaks inside Chinese or Japanese text removed (with the spaces around them); others stay. */
export function joinCjkLines(text: string): string {
  // Every match holds a "\n": most sentences have none, and the lookbehinds scan every position.
  if (!text.includes("\n")) return text;
  return text.replace(CJK_LINE_BREAK, "");
}

const ENDS_CJK = new RegExp(`${CJK}$`, "u");
const STARTS_CJK = new RegExp(`^${CJK}`, "u");

/**
 * Two sentences (or fragments) joined as prose: without a space only where both sides are Chinese
 * or Japanese, which is written without them; "城市。" then "Lumora Optics is" needs one.
 */
export function joinProse(before: string, after: string): string {
  if (!before) return after;
  if (!after) return before;
  return ENDS_CJK.test(before) && STARTS_CJK.test(after) ? `${before}${after}` : `${before} ${after}`;
}

/** One sentence as a single line: wrapped Chinese joined without a space, other whitespace one space. */
export function singleLine(sentence: string): string {
  return joinCjkLines(sentence).replace(/\s+/g, " ").trim();
}

/** A text with some characters left out, and where each remaining one was in the original. */
export interface JoinedText {
  text: string;
  /** origin[i]: the original offset of text[i]; one extra entry for the end. */
  origin: number[];
}

/**
 * The text with line breaks between Chinese characters (and spaces around them) left out, so a
 * word wrapped across two lines is one word again; other line breaks become spaces.
 */
export function joinWrappedCjk(text: string): JoinedText {
  let joined = "";
  const origin: number[] = [];
  let from = 0;
  const keep = (end: number) => {
    for (let at = from; at < end; at++) {
      joined += text[at] === "\n" || text[at] === "\r" ? " " : text[at];
      origin.push(at);
    }
  };
  for (const match of text.matchAll(CJK_LINE_BREAK)) {
    keep(match.index);
    from = match.index + match[0].length;
  }
  keep(text.length);
  origin.push(text.length);
  return { text: joined, origin };
}
