import { Lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { convertHtml, WORDS_AS_WRITTEN } from "../util/html-to-text.js";
import { joinCjkLines } from "./line-breaks.js";
import { looksLikeMarkdown } from "./markdown-detect.js";

/**
 * The text the offline NLP should read: markdown turned into prose, anything else unchanged.
 * Only what the NLP sees changes; chunk text and offsets (which citations point into) never do.
 */
export function proseForAnalysis(text: string): string {
  return analysisReading(text).prose;
}

/** The prose the offline NLP reads, with the lines of it that are headings (they name, they state nothing). */
export interface AnalysisReading {
  prose: string;
  headings: string[];
}

/** proseForAnalysis, with the headings of markdown text as its prose lines spell them. */
export function analysisReading(text: string): AnalysisReading {
  if (!looksLikeMarkdown(text)) return { prose: text, headings: [] };
  const headings: string[] = [];
  return { prose: proseOf(text, { ...WHOLE, seenHeadings: headings }), headings };
}

/**
 * Markdown as plain prose, one line per heading, paragraph, list item, table row or quote, so the
 * sentence splitters (which end a sentence at a line break) never run a heading into the next
 * sentence. Syntax goes (markers, emphasis, link targets, table pipes); closed code blocks go
 * whole, as code is no prose to describe entities with. Works on a chunk cut anywhere in a file.
 */
export function markdownProse(markdown: string, options: ProseOptions = {}): string {
  return proseOf(markdown, { ...WHOLE, ...options });
}

/** How one text is read: the options, and where its heading lines are collected, if anywhere. */
type Reading = Required<ProseOptions> & { seenHeadings?: string[] };

function proseOf(markdown: string, options: Reading): string {
  return blockLines(Lexer.lex(markdown, { gfm: true }), options)
    .flatMap((block) => block.split(HARD_BREAK))
    .map((line) => scrubLeftovers(line))
    .filter((line) => line.length > 0)
    .join("\n\n");
}

/**
 * What to keep besides paragraphs and lists. The NLP reads everything; text quoted to a reader
 * (offline answers, summaries, reports) leaves out headings and table header rows, which name
 * topics and columns but state nothing.
 */
export interface ProseOptions {
  headings?: boolean;
  tableHeaders?: boolean;
}
const WHOLE: Required<ProseOptions> = { headings: true, tableHeaders: true };
const QUOTABLE: ProseOptions = { headings: false, tableHeaders: false };

/** Text fit to quote to a reader: markup stripped, headings and table header rows left out. */
export function quotableProse(text: string): string {
  return looksLikeMarkdown(text) || TABLE_ROW.test(text) ? markdownProse(text, QUOTABLE) : text;
}

/** One sentence or description as plain text: markup (emphasis, heading marks, table pipes) stripped. */
export function stripMarkup(text: string): string {
  if (!looksLikeMarkdown(text) && !TABLE_ROW.test(text)) return text;
  return markdownProse(text, { tableHeaders: false }).replace(/\n\n/g, " ");
}

/** Raw HTML in markdown: its words as written (no upper-cased headings, no link targets). */
const HTML_AS_TEXT = { wordwrap: false as const, selectors: WORDS_AS_WRITTEN };

/** Stands for a hard line break until soft ones are joined, then ends its line. */
const HARD_BREAK = "\u2028";

// marked's lexer, without extensions, only yields its own token kinds (Tokens.Generic is for extensions).
const known = (token: Token) => token as MarkedToken;

function blockLines(tokens: Token[], options: Reading): string[] {
  return tokens.flatMap((token) => blockLinesOf(known(token), options));
}

function blockLinesOf(token: MarkedToken, options: Reading): string[] {
  switch (token.type) {
    case "heading": {
      if (!options.headings) return [];
      const line = oneLine(inlineText(token.tokens));
      options.seenHeadings?.push(scrubLeftovers(line));
      return [line];
    }
    case "paragraph":
      return TABLE_ROW.test(token.text) ? headerlessRows(token.text) : [oneLine(inlineText(token.tokens))];
    case "text":
      // A tight list item's text is a block "text" token holding inline tokens.
      return [oneLine(token.tokens ? inlineText(token.tokens) : token.text)];
    case "list":
      return token.items.flatMap((item) => blockLines(item.tokens, options));
    case "blockquote":
      return blockLines(token.tokens, options);
    case "table":
      return [...(options.tableHeaders ? [token.header] : []), ...token.rows].map((row) =>
        row.map((cell) => inlineText(cell.tokens)).join("; "),
      );
    case "code":
      return codeLines(token);
    case "html":
      return convertHtml(token.text, HTML_AS_TEXT).split("\n");
    default:
      // space, hr, def (link definitions), and inline kinds never met at block level.
      return [];
  }
}

const TABLE_ROW = /^ {0,3}\|.*\|[ \t]*$/m;

/** Rows of a table whose header row is in the previous chunk parse as one paragraph: one line each. */
function headerlessRows(text: string): string[] {
  return text.split("\n").map((row) => inlineText(Lexer.lexInline(row, { gfm: true })));
}

/**
 * A closed fenced block is code and is left out. Indented "code" is kept: in text that only
 * looks like markdown it is usually an indented paragraph. An unclosed fence means the chunk was
 * cut inside or just before a block, and its fence may be a closing one: its lines are kept so
 * no prose is lost.
 */
function codeLines(token: Tokens.Code): string[] {
  const fenced = token.codeBlockStyle !== "indented";
  const closed = /(?:^|\n) {0,3}(?:```|~~~)[`~]*[ \t]*\n*$/.test(token.raw.replace(/^[^\n]*\n?/, ""));
  if (fenced && closed) return [];
  return token.text.split("\n");
}

function inlineText(tokens: Token[]): string {
  return tokens.map((token) => inlineTextOf(known(token))).join("");
}

function inlineTextOf(token: MarkedToken): string {
  switch (token.type) {
    case "strong":
    case "em":
    case "del":
      return inlineText(token.tokens);
    case "link":
      // A bare URL (autolink) is an address, not words; a link's text is kept, its target dropped.
      return token.text === token.href ? "" : inlineText(token.tokens);
    case "image":
      return token.text;
    case "text":
      return token.tokens ? inlineText(token.tokens) : token.text;
    case "codespan":
    case "escape":
      return token.text;
    case "br":
      return HARD_BREAK;
    default:
      // inline html tags, checkboxes, and block kinds that never occur inline.
      return "";
  }
}

/** Soft line breaks of a paragraph join its lines (with nothing between Chinese characters). */
function oneLine(text: string): string {
  return joinCjkLines(text)
    .replace(/[ \t]*\n[ \t]*/g, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

/**
 * Syntax a chunk boundary can leave unparsed: a table row without its header, emphasis whose
 * other half is in the next chunk, a bare fence.
 */
function scrubLeftovers(line: string): string {
  let text = line.trim();
  if (/^\|.*\|$/.test(text)) {
    text = text
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim())
      .filter((cell) => cell && !/^:?-+:?$/.test(cell))
      .join("; ");
  }
  return text
    .replace(/^(?:```|~~~)[\w-]*$/, "")
    .replace(/\*{2,}|_{2,}/g, "")
    .trim();
}
