import { singleLine, unwrapLines } from "./line-breaks.js";

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });
// "Mr." or "St." ends an ICU sentence; a short capitalised word before the stop is a title, not an end.
const ABBREVIATION_END = /(?:^|\s)[A-Z][a-z]{0,2}\.\s*$/;

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
  for (const s of sentences.segment(unwrapLines(text))) {
    pending += s.segment;
    if (ABBREVIATION_END.test(pending)) continue;
    push(text.slice(start, s.index + s.segment.length));
    start = s.index + s.segment.length;
    pending = "";
  }
  push(text.slice(start));
  return out;
}
