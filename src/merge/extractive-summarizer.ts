import { joinProse } from "../nlp/line-breaks.js";
import { stripMarkup } from "../nlp/markdown-prose.js";
import { splitSentences } from "../nlp/sentence-split.js";
import { BoundedMemo } from "../util/bounded-memo.js";
import { lazySegmenter } from "../util/lazy-segmenter.js";
import { countTokens, truncateToTokens } from "../util/tokens.js";
import type { DescriptionSummarizer } from "./summarizer.js";

/** A sentence sharing this much of its words (Jaccard) with one already chosen repeats it. */
const NEAR_DUPLICATE = 0.7;

const wordSegmenter = lazySegmenter(undefined, "word");

interface Sentence {
  text: string;
  order: number;
  words: ReadonlySet<string>;
  tokens: number;
}

/**
 * The offline built-in: keeps the most representative sentences of the fragments, those sharing
 * the most words with the rest (degree centrality on word overlap), within the token target, in
 * the order they were first seen. Deterministic and model-free; it selects, it never rewrites.
 */
export class ExtractiveSummarizer implements DescriptionSummarizer {
  readonly kind = "extractive" as const;

  constructor(private readonly opts: { summaryMaxTokens: number }) {}

  async summarize(_subject: { kind: "entity" | "relationship"; name: string }, fragments: string[]) {
    const sentences = uniqueSentences(fragments);
    if (sentences.length === 0) return "";
    const total = sentences.reduce((sum, s) => sum + s.tokens, 0);
    const chosen = total <= this.opts.summaryMaxTokens ? sentences : this.select(sentences);
    return joinSentences(chosen.sort((a, b) => a.order - b.order).map((s) => s.text));
  }

  private select(sentences: Sentence[]): Sentence[] {
    const scores = centrality(sentences);
    const ranked = [...sentences].sort((a, b) => scores[b.order]! - scores[a.order]! || a.order - b.order);
    const chosen: Sentence[] = [];
    let used = 0;
    for (const sentence of ranked) {
      if (used + sentence.tokens > this.opts.summaryMaxTokens) continue;
      if (chosen.some((c) => jaccard(c.words, sentence.words) >= NEAR_DUPLICATE)) continue;
      chosen.push(sentence);
      used += sentence.tokens;
    }
    if (chosen.length > 0) return chosen;
    // Even the best sentence alone is too long: keep its beginning.
    const best = ranked[0]!;
    return [{ ...best, text: truncateToTokens(best.text, this.opts.summaryMaxTokens) }];
  }
}

/** A fragment's sentences with their words and token counts, as every description holding it needs them. */
interface FragmentSentence {
  readonly text: string;
  readonly folded: string;
  readonly words: ReadonlySet<string>;
  readonly tokens: number;
}

/**
 * Fragments whose sentences are remembered, up to this many characters of fragment text in all
 * (with their words, about 11 bytes of memory a character: some 20 MB; all forgotten at once past it).
 * One sentence of a passage describes every entity it names and every pair among them, so the
 * same fragment comes back in many descriptions; cutting it into sentences and words
 * (Intl.Segmenter) and counting its tokens was most of a summary's cost. The words are only read,
 * so the sets are shared.
 */
const REMEMBERED_FRAGMENT_CHARACTERS = 2_000_000;
const sentencesOfFragment = new BoundedMemo<string, readonly FragmentSentence[]>(
  REMEMBERED_FRAGMENT_CHARACTERS,
  (fragment) => fragment.length,
);

function fragmentSentences(fragment: string): FragmentSentence[] {
  // Whole sentences even where a fragment is hard-wrapped; each comes back on one line.
  return splitSentences(stripMarkup(fragment))
    .filter((text) => text)
    .map((text) => ({ text, folded: text.toLowerCase(), words: wordsOf(text), tokens: countTokens(text) }));
}

function uniqueSentences(fragments: string[]): Sentence[] {
  const seen = new Set<string>();
  const sentences: Sentence[] = [];
  for (const fragment of fragments) {
    for (const { text, folded, words, tokens } of sentencesOfFragment.get(fragment, () =>
      fragmentSentences(fragment),
    )) {
      if (seen.has(folded)) continue;
      seen.add(folded);
      sentences.push({ text, order: sentences.length, words, tokens });
    }
  }
  return sentences;
}

/** Words as Intl.Segmenter sees them, which also splits Chinese into words without spaces. */
function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const { segment, isWordLike } of wordSegmenter().segment(text.toLowerCase())) {
    if (isWordLike) words.add(segment);
  }
  return words;
}

/**
 * Sum of each sentence's similarity to all the others, added in index order as a loop over pairs
 * adds them. A hub entity has thousands of sentences: the words they share are counted through
 * each word's list of sentences, instead of comparing every pair of word sets.
 */
export function centrality(sentences: readonly { words: ReadonlySet<string> }[]): number[] {
  const sentencesOf = new Map<string, number[]>();
  sentences.forEach(({ words }, i) => {
    for (const word of words) {
      const list = sentencesOf.get(word);
      if (list) list.push(i);
      else sentencesOf.set(word, [i]);
    }
  });
  const sizes = sentences.map((s) => s.words.size);
  const shared = new Int32Array(sentences.length);
  return sentences.map(({ words }, i) => {
    shared.fill(0);
    for (const word of words) for (const j of sentencesOf.get(word)!) shared[j]! += 1;
    let score = 0;
    for (let j = 0; j < sentences.length; j += 1) {
      if (j !== i) score += similarity(shared[j]!, sizes[i]!, sizes[j]!);
    }
    return score;
  });
}

/** Shared words over the smaller set, so a short sentence contained in a long one scores high. */
function similarity(shared: number, sizeA: number, sizeB: number): number {
  if (sizeA === 0 || sizeB === 0) return 0;
  return shared / Math.min(sizeA, sizeB);
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const shared = sharedWords(a, b);
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

function sharedWords(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared;
}

/** Sentences as prose: spaced, except between two Chinese or Japanese ones. */
function joinSentences(sentences: string[]): string {
  return sentences.reduce(joinProse, "");
}
