import { type ExtractiveAnswerConfig, ExtractiveAnswerSchema } from "../../config.js";
import { analyzeText } from "../../nlp/analyze.js";
import { detectScript } from "../../nlp/script.js";
import type { Mention } from "../../nlp/types.js";
import type { ContextChunk, Reference } from "../result.js";
import { type AnswerPassage, answerPassages } from "./passages.js";
import { questionType } from "./question-type.js";
import { scoreSentences } from "./sentence-scoring.js";

export const EXTRACTIVE_LABEL =
  "Extractive answer (offline, no LLM: the passages' sentences that best match the question):";

const DEFAULTS = ExtractiveAnswerSchema.parse({});
const SENTENCE_END = /[.!?。！？]["'”’)）]*$/;

/**
 * The offline answer: the context sentences that best answer the question (see scoreSentences:
 * question terms weighted by rarity, opening pronouns resolved to the passage's subject, two-hop
 * bridges, and the kind of answer asked for), quoted with the [n] of their passage and labelled as
 * extractive. A whole-corpus question ("What are the main themes?") gets the opening sentence of
 * each passage instead: what the passages are about, not the one that shares a word with it.
 */
export function extractiveAnswer(
  question: string,
  chunks: ContextChunk[],
  references: Reference[],
  config: ExtractiveAnswerConfig = DEFAULTS,
): string {
  const mentionsOf = memoizedMentions();
  const readable = inQuestionLanguage(question, chunks, references);
  const passages = answerPassages(readable.chunks, readable.references, mentionsOf);
  const type = questionType(question);
  const quoted = type.theme
    ? openingSentences(passages, config.sentences)
    : scoreSentences(question, type, passages, config, mentionsOf)
        .slice(0, config.sentences)
        .map((s) => ({ text: s.sentence.text, n: s.n }));
  const first = passages[0]?.sentences[0];
  const lines =
    quoted.length > 0 ? quoted : first && passages[0] ? [{ text: first.text, n: passages[0].n }] : [];
  return [EXTRACTIVE_LABEL, ...lines.map((l) => `${l.text} [${l.n}]`)].join("\n");
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
