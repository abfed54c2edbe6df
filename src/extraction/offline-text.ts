import { singleLine } from "../nlp/line-breaks.js";
import { continuesASentence } from "../nlp/sentence-split.js";
import type { TextAnalysis } from "../nlp/types.js";

const MAX_SENTENCE_CHARS = 300;

/**
 * A sentence on one line (a wrapped Chinese sentence joined without a space), short enough for a
 * description fragment, cut at a word boundary when too long.
 */
export function clipSentence(sentence: string, max = MAX_SENTENCE_CHARS): string {
  const text = singleLine(sentence);
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A chunk's sentences prepared once: as written, clipped for descriptions, and their theme words. */
export interface ChunkSentences {
  text: string[];
  clipped: string[];
  /** Per sentence: distinct content lemmas, verbs before nouns. */
  themes: string[][];
  /** The first sentence is the end of one begun before the chunk (its clipped text opens with "…"). */
  partialOpening: boolean;
}

/** `startsInside`: the chunk is cut from inside its document, so its opening may continue a sentence. */
export function prepareSentences(analysis: TextAnalysis, startsInside: boolean): ChunkSentences {
  const verbs: string[][] = analysis.sentences.map(() => []);
  const nouns: string[][] = analysis.sentences.map(() => []);
  for (const word of analysis.words) (word.pos === "verb" ? verbs : nouns)[word.sentence]?.push(word.lemma);
  const text = analysis.sentences.map((s) => s.text);
  const clipped = text.map((s) => clipSentence(s));
  const partialOpening = startsInside && text.length > 0 && continuesASentence(text[0]!);
  if (partialOpening) clipped[0] = `…${clipped[0]}`;
  return {
    text,
    clipped,
    themes: analysis.sentences.map((_, i) => [...new Set([...verbs[i]!, ...nouns[i]!])]),
    partialOpening,
  };
}
