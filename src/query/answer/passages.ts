import { isTitleLike, opensBlock } from "../../nlp/line-breaks.js";
import { quotableProse } from "../../nlp/markdown-prose.js";
import { continuesASentence, splitSentences } from "../../nlp/sentence-split.js";
import type { Mention } from "../../nlp/types.js";
import type { ContextChunk, Reference } from "../result.js";
import { passiveVerbOfReference, resolveSubjects, subjectName } from "./pronoun.js";
import { contentTerms } from "./terms.js";

/** A context passage as the extractive answer reads it. */
export interface AnswerPassage {
  /** Its reference number [n]. */
  n: number;
  /** What it is about, from its title; null when it has none. */
  subject: string | null;
  text: string;
  sentences: AnswerSentence[];
}

export interface AnswerSentence {
  text: string;
  /** Position over the whole context: earlier passages and sentences win ties. */
  order: number;
  terms: Set<string>;
  /** Terms of the subject an opening pronoun refers to ("It was founded..." -> the title's words). */
  subjectTerms: Set<string>;
  /** Terms of the verb said of that subject in the passive ("found" of "It was founded..."); else empty. */
  passiveTerms: Set<string>;
}

/** Sentences and their resolved subjects for every context passage, numbered as the references are. */
export function answerPassages(
  chunks: ContextChunk[],
  references: Reference[],
  mentionsOf: (sentence: string) => Mention[],
): AnswerPassage[] {
  let order = 0;
  // Overlapping passages hold the same sentences: each is quoted from the first passage holding it
  // (after their subjects are resolved: "He was born..." takes its subject from the sentence before).
  const quoted = new Set<string>();
  return chunks.map((chunk, i) => {
    const title = references[i]?.title;
    const startsInside = (references[i]?.start ?? 0) > 0;
    const texts = answerSentences(quotableProse(chunk.text), startsInside, title);
    const subjects = resolveSubjects(texts, title, mentionsOf);
    const sentences = texts.flatMap((text, k) => {
      const key = text.replace(/\s+/g, " ").trim();
      if (quoted.has(key)) return [];
      quoted.add(key);
      return [
        {
          text,
          order: order++,
          terms: new Set(contentTerms(text)),
          subjectTerms: new Set(contentTerms(subjects[k] ?? "")),
          passiveTerms: new Set(subjects[k] ? contentTerms(passiveVerbOfReference(text) ?? "") : []),
        },
      ];
    });
    return { n: references[i]?.n ?? i + 1, subject: subjectName(title), text: chunk.text, sentences };
  });
}

/**
 * Sentences fit to quote: headings and title lines ("Gullwing drone", "澄州城市简介") name a topic
 * but state nothing, and neither does the document's own title line, subtitle and all ("Mara
 * Quell: a profile"). Short fact lines ("- CEO: Maria Lopez", "创始人：张伟") are kept; a passage
 * with nothing else keeps all its sentences. A passage cut from inside its document
 * (`startsInside`) may open with the end of a sentence ("to discuss project 137 with Sofia
 * Bakker."): an opening that continues one (see continuesASentence) is left out (the passage
 * before it, which overlaps this one, holds the sentence).
 */
function answerSentences(text: string, startsInside: boolean, title: string | undefined): string[] {
  const split = splitSentences(text);
  const sentences = startsInside && continuesASentence(split[0] ?? "") ? split.slice(1) : split;
  const titleLine = title ? sameText(title) : null;
  const fit = sentences.filter((s) => !s.startsWith("#") && !namesOnlyATopic(s) && sameText(s) !== titleLine);
  return fit.length > 0 ? fit : sentences;
}

const sameText = (text: string) => text.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();

/** A title-like sentence that is not a list item or "key: value" line. */
function namesOnlyATopic(sentence: string): boolean {
  const fact = opensBlock(sentence) || /[:：]/.test(sentence);
  return !fact && isTitleLike(sentence);
}
