import { splitSentences } from "../nlp/sentence-split.js";

/**
 * Small-to-Big's child units: a chunk's sentences, matched on their own so that a question that
 * fits one sentence of a long passage ranks that passage (the parent is what retrieval returns).
 * At most `max` units: the sentences past the last one are joined into it.
 */
export function chunkUnits(text: string, max: number): string[] {
  const sentences = splitSentences(text);
  if (sentences.length <= max) return sentences;
  return [...sentences.slice(0, max - 1), sentences.slice(max - 1).join(" ")];
}
