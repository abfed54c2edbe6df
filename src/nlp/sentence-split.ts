import { lazySegmenter } from "../util/lazy-segmenter.js";
import { singleLine, unwrapLines } from "./line-breaks.js";

const sentences = lazySegmenter("en", "sentence");
/**
 * Abbreviations whose stop ICU takes for a sentence end: titles, company forms, "No." and the
 * common Latin ones. Short on purpose: any other short word before a stop ("founded by Jon Vik.")
 * ends its sentence, so only words nearly always written abbreviated belong here. Not "etc": it
 * often ends a sentence, and ICU already reads on when a lower-case word follows it.
 */
const ABBREVIATIONS = "Mr Mrs Ms Dr Prof Gen St Mt Jr Sr Inc Ltd Co Corp No vs e.g i.e U.S".split(" ");
/** A known abbreviation, or a single capital initial ("J. R. R. Tolkien"), just before the stop. */
const ABBREVIATION_END = new RegExp(
  `(?:^|[\\s(])(?:${ABBREVIATIONS.map((a) => a.replaceAll(".", "\\.")).join("|")}|\\p{Lu})\\.\\s*$`,
  "u",
);

/**
 * Sentences of any language ICU segments, each on one line. ICU ends a sentence at every line
 * break, so it reads the text with its wrapping line breaks made spaces: a hard-wrapped sentence
 * comes out whole, while a blank line, a heading or a list item still ends one.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  const push = (sentence: string) => {
    const line = singleLine(sentence);
    if (line) out.push(line);
  };
  let start = 0;
  let pending = "";
  for (const s of sentences().segment(unwrapLines(text))) {
    pending += s.segment;
    if (ABBREVIATION_END.test(pending)) continue;
    push(text.slice(start, s.index + s.segment.length));
    start = s.index + s.segment.length;
    pending = "";
  }
  push(text.slice(start));
  return out;
}

/**
 * An opening that can only be the middle of a sentence: a word in lower case throughout ("to
 * discuss...", not "eBay" or "iOS"), or closing punctuation. A digit may start a sentence ("2024
 * revenue rose...", "1. Install..."). Text cut from inside a document (a chunk after the first)
 * may open this way; the chunk before it, which overlaps it, holds the whole sentence.
 */
export function continuesASentence(sentence: string): boolean {
  return CONTINUES_A_SENTENCE.test(sentence);
}

const CONTINUES_A_SENTENCE = /^(?:\p{Ll}+(?![\p{L}\p{N}])|[,;:)\]}»”’])/u;
