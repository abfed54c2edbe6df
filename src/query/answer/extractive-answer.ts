import { type ExtractiveAnswerConfig, ExtractiveAnswerSchema } from "../../config.js";
import { analyzeText } from "../../nlp/analyze.js";
import { detectScript } from "../../nlp/script.js";
import type { Mention } from "../../nlp/types.js";
import type { ContextChunk, Reference } from "../result.js";
import { type AnswerPassage, answerPassages } from "./passages.js";
import { questionType } from "./question-type.js";
import { scoreSentences } from "./sentence-scoring.js";
import { contentTerms } from "./terms.js";
import { yesNoQuestion, yesNoVerdict } from "./yes-no.js";

export const EXTRACTIVE_LABEL =
  "Extractive answer (offline, no LLM: the passages' sentences that best match the question):";

const DEFAULTS = ExtractiveAnswerSchema.parse({});
const SENTENCE_END = /[.!?。！？]["'”’)）]*$/;

/** The offline answer's line when no passage sentence shares a content word with the question. */
export const NO_MATCHING_SENTENCE =
  "No sentence of the passages found shares a word with the question: the documents may not cover it.";

/**
 * The offline answer: the context sentences that best answer the question (see scoreSentences:
 * question terms weighted by rarity, opening pronouns resolved to the passage's subject, two-hop
 * bridges, and the kind of answer asked for), quoted with the [n] of their passage and labelled as
 * extractive. A whole-corpus question ("What are the main themes?") gets the opening sentence of
 * each passage instead: what the passages are about, not the one that shares a word with it.
 * When no sentence shares a word with the question, it says so rather than quote an unrelated one.
 */
export function extractiveAnswer(
  question: string,
  chunks: ContextChunk[],
  references: Reference[],
  config: ExtractiveAnswerConfig = DEFAULTS,
): string {
  return extractiveText(extractiveQuotes(question, chunks, references, config));
}

/** What the offline answer says: a yes/no question's verdict, if any, and the quoted sentences. */
export interface ExtractiveQuotes {
  verdict: string | null;
  quotes: { text: string; n: number }[];
}

/** The labelled answer: the verdict, then the quoted sentences, each with its [n]; or the line saying none matched. */
export function extractiveText({ verdict, quotes }: ExtractiveQuotes): string {
  const lines = quotes.length > 0 ? quotes.map((l) => `${l.text} [${l.n}]`) : [NO_MATCHING_SENTENCE];
  return [EXTRACTIVE_LABEL, ...(verdict ? [verdict] : []), ...lines].join("\n");
}

/**
 * The sentences the offline answer quotes, with their passage's [n] (none when none matches), and
 * for a yes/no question about two named things, the verdict the passages support (see yesNoVerdict).
 */
export function extractiveQuotes(
  question: string,
  chunks: ContextChunk[],
  references: Reference[],
  config: ExtractiveAnswerConfig = DEFAULTS,
): ExtractiveQuotes {
  const mentionsOf = memoizedMentions();
  const readable = inQuestionLanguage(question, chunks, references);
  const passages = answerPassages(readable.chunks, readable.references, mentionsOf);
  const type = questionType(question);
  if (type.theme) return { verdict: null, quotes: openingSentences(passages, config.sentences) };
  const scored = scoreSentences(question, type, passages, config, mentionsOf)
    .slice(0, config.sentences)
    .map((s) => ({ text: s.sentence.text, n: s.n }));
  const quotes = scored.length > 0 ? scored : topPassageOpening(question, passages);
  const yesNo = quotes.length > 0 ? yesNoQuestion(question) : null;
  return { verdict: yesNo ? yesNoVerdict(yesNo, passages, mentionsOf) : null, quotes };
}

/**
 * When no sentence scores: the top passage's first sentence, if that passage is about the question
 * at all (it, or its title, shares a word with it: "What is the Gullwing drone?" and a passage
 * titled so whose sentences never repeat the name) or is in another language (where no word can
 * match); none for a passage the question has nothing in common with.
 */
function topPassageOpening(question: string, passages: AnswerPassage[]): { text: string; n: number }[] {
  const top = passages[0];
  const first = top?.sentences[0];
  if (!top || !first) return [];
  const asked = new Set(contentTerms(question));
  const related =
    detectScript(question) !== detectScript(top.text) ||
    contentTerms(`${top.subject ?? ""} ${top.text}`).some((term) => asked.has(term));
  return related ? [{ text: first.text, n: top.n }] : [];
}

/**
 * The passages written in the question's language, keeping their [n]: an English question is
 * answered from English sentences, a Chinese one from Chinese sentences (and analysing the other
 * language would load its tagger for nothing). Mixed passages always stay; when no passage is in
 * the question's language, every passage does.
 */
function inQuestionLanguage(
  question: string,
  chunks: ContextChunk[],
  references: Reference[],
): { chunks: ContextChunk[]; references: Reference[] } {
  const asked = detectScript(question);
  // Filtering needs each chunk's reference to keep its number.
  if (asked === "mixed" || references.length !== chunks.length) return { chunks, references };
  const keep = chunks.map((chunk) => {
    const script = detectScript(chunk.text);
    return script === asked || script === "mixed";
  });
  if (!keep.some(Boolean)) return { chunks, references };
  return {
    chunks: chunks.filter((_, i) => keep[i]),
    references: references.filter((_, i) => keep[i]),
  };
}

/**
 * Each passage's first full sentence: a line without an end mark ("Vessen: a city guide") only
 * names the passage.
 */
function openingSentences(passages: AnswerPassage[], count: number): { text: string; n: number }[] {
  return passages
    .flatMap((p) => {
      const opening = p.sentences.find((s) => SENTENCE_END.test(s.text)) ?? p.sentences[0];
      return opening ? [{ text: opening.text, n: p.n }] : [];
    })
    .slice(0, count);
}

/** The tagger runs once per sentence, and only on sentences that need it. */
function memoizedMentions(): (sentence: string) => Mention[] {
  const seen = new Map<string, Mention[]>();
  return (sentence) => {
    let mentions = seen.get(sentence);
    if (!mentions) {
      mentions = analyzeText(sentence).mentions;
      seen.set(sentence, mentions);
    }
    return mentions;
  };
}
