import { isTitleLike, opensBlock } from "../../nlp/line-breaks.js";
import { quotableProse } from "../../nlp/markdown-prose.js";
import { splitSentences } from "../../nlp/sentence-split.js";
import type { ContextChunk, Reference } from "../result.js";
import { contentTerms } from "./terms.js";

export const EXTRACTIVE_LABEL =
  "Extractive answer (offline, no LLM: the passages' sentences that best match the question):";

/** Sentences quoted; three give a multi-hop question room for both of its hops without flooding. */
const MAX_SENTENCES = 3;

interface Candidate {
  text: string;
  n: number;
  terms: Set<string>;
  order: number;
}

/**
 * The offline answer: the context sentences sharing the most informative question terms (each
 * term weighted by its inverse document frequency over the context's sentences), quoted with the
 * [n] of their passage and labelled as extractive.
 */
export function extractiveAnswer(question: string, chunks: ContextChunk[], references: Reference[]): string {
  const wanted = new Set(contentTerms(question));
  const candidates = chunks
    .flatMap((chunk, i) =>
      answerSentences(quotableProse(chunk.text)).map((text) => ({
        text,
        n: references[i]?.n ?? i + 1,
        terms: new Set(contentTerms(text)),
      })),
    )
    .map((c, order): Candidate => ({ ...c, order }));
  const idf = inverseDocumentFrequency(candidates, wanted);
  const scored = candidates
    .map((c) => ({
      c,
      score: [...wanted].reduce((sum, t) => sum + (c.terms.has(t) ? (idf.get(t) ?? 0) : 0), 0),
    }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.c.order - b.c.order)
    .slice(0, MAX_SENTENCES);
  if (scored.length === 0) {
    const first = candidates[0];
    return first ? `${EXTRACTIVE_LABEL}\n${first.text} [${first.n}]` : EXTRACTIVE_LABEL;
  }
  return `${EXTRACTIVE_LABEL}\n${scored.map((s) => `${s.c.text} [${s.c.n}]`).join("\n")}`;
}

/**
 * Sentences fit to quote: headings and title lines ("Gullwing drone", "澄州城市简介") name a topic
 * but state nothing. Short fact lines ("- CEO: Maria Lopez", "创始人：张伟") are kept; a passage with
 * nothing else keeps all its sentences.
 */
function answerSentences(text: string): string[] {
  const sentences = splitSentences(text);
  const fit = sentences.filter((s) => !s.startsWith("#") && !namesOnlyATopic(s));
  return fit.length > 0 ? fit : sentences;
}

/** A title-like sentence that is not a list item or "key: value" line. */
function namesOnlyATopic(sentence: string): boolean {
  const fact = opensBlock(sentence) || /[:：]/.test(sentence);
  return !fact && isTitleLike(sentence);
}

function inverseDocumentFrequency(candidates: Candidate[], terms: Set<string>): Map<string, number> {
  const idf = new Map<string, number>();
  const total = candidates.length;
  for (const term of terms) {
    const df = candidates.filter((c) => c.terms.has(term)).length;
    if (df > 0) idf.set(term, Math.log(1 + total / df));
  }
  return idf;
}
