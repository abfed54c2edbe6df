import type { Embedder } from "./embedder.js";

/** Word segmentation that also splits Chinese (ICU dictionary) and Japanese into words. */
const segmenter = new Intl.Segmenter("en", { granularity: "word" });

// Whole words carry most of the signal; neighbours and word fragments add a little, so that word
// order and inflections ("index", "indexing") count without outweighing exact matches.
const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.25;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over a string, continuing from `state`, so features hash without building substrings. */
function fnv(state: number, text: string, start = 0, end = text.length): number {
  let h = state;
  for (let i = start; i < end; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

/** Murmur3's finaliser: spreads FNV's weak low bits before they choose a slot and a sign. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const UNIGRAM_SEED = fnv(FNV_OFFSET, "u:");
const BIGRAM_SEED = fnv(FNV_OFFSET, "b:");
const TRIGRAM_SEED = fnv(FNV_OFFSET, "c:");

/** Letter/digit runs (with inner apostrophes or dots, as in "don't" or "3.14"). */
const WORD_RUN = /[\p{L}\p{N}\p{M}]+(?:['’.][\p{L}\p{N}\p{M}]+)*/gu;
/** Scripts written without spaces, which need the dictionary segmenter. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * Words of a text. A regular expression handles spaced scripts; only runs that contain Chinese or
 * Japanese go through Intl.Segmenter, which is about ten times slower.
 */
export function lexicalWords(text: string): string[] {
  const words: string[] = [];
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(WORD_RUN)) {
    if (!UNSPACED.test(run)) {
      words.push(run);
      continue;
    }
    for (const segment of segmenter.segment(run)) {
      if (segment.isWordLike) words.push(segment.segment);
    }
  }
  return words;
}

function bump(counts: Map<number, number>, key: number): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function countFeatures(words: string[]): Map<number, number>[] {
  const unigrams = new Map<number, number>();
  const bigrams = new Map<number, number>();
  const trigrams = new Map<number, number>();
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    bump(unigrams, fnv(UNIGRAM_SEED, word));
    if (i > 0) bump(bigrams, fnv(fnv(fnv(BIGRAM_SEED, words[i - 1]!), " "), word));
    const padded = ` ${word} `;
    for (let j = 0; j + 3 <= padded.length; j += 1) bump(trigrams, fnv(TRIGRAM_SEED, padded, j, j + 3));
  }
  return [unigrams, bigrams, trigrams];
}

const WEIGHTS = [UNIGRAM_WEIGHT, BIGRAM_WEIGHT, TRIGRAM_WEIGHT];

/**
 * The offline built-in embedder: deterministic signed feature hashing of word unigrams, word
 * bigrams and character trigrams, with sublinear term frequency, L2-normalised.
 *
 * It measures LEXICAL overlap honestly: texts sharing words (or word fragments) come out close;
 * synonyms, paraphrases and translations do not. It is no semantic model and is named "hashing"
 * everywhere so nobody mistakes it for one. Text without any word maps to the zero vector.
 */
export class HashingEmbedder implements Embedder {
  readonly kind = "hashing" as const;
  readonly model = "hashing-v1";

  private readonly scratch: Float64Array;

  constructor(readonly dimension = 512) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new Error(`Hashing embedder dimension must be a positive integer, got ${dimension}`);
    }
    this.scratch = new Float64Array(dimension);
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): number[] {
    // One scratch vector for every call: a relationship-heavy graph embeds hundreds of thousands
    // of short texts, and a fresh typed array per text kept the garbage collector busy.
    const vector = this.scratch;
    vector.fill(0);
    countFeatures(lexicalWords(text)).forEach((counts, kind) => {
      const weight = WEIGHTS[kind]!;
      for (const [feature, count] of counts) {
        const h = mix(feature);
        const sign = h & 0x80000000 ? -1 : 1;
        vector[h % this.dimension]! += sign * weight * (1 + Math.log(count));
      }
    });
    let norm = 0;
    for (let i = 0; i < vector.length; i += 1) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    const out = new Array<number>(vector.length);
    for (let i = 0; i < vector.length; i += 1) out[i] = norm > 0 ? vector[i]! / norm : 0;
    return out;
  }
}
