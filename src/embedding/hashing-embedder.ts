import { lazySegmenter } from "../util/lazy-segmenter.js";
import type { Embedder } from "./embedder.js";

/** Word segmentation that also splits Chinese (ICU dictionary) and Japanese into words. */
const segmenter = lazySegmenter("en", "word");

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
    for (const segment of segmenter().segment(run)) {
      if (segment.isWordLike) words.push(segment.segment);
    }
  }
  return words;
}

/**
 * Counts of hashed features in first-seen order, in typed arrays reused from text to text: a Map
 * per text and feature kind (hundreds of thousands of texts per index run) kept the garbage
 * collector busy. Features are keyed by their mixed hash, which is a bijection of the feature, so
 * two features share a key only when they are the same feature.
 */
class FeatureCounts {
  /** Open addressing: the entry index + 1 of a slot, valid only where `stamps` holds `generation`. */
  private slots = new Int32Array(1024);
  private stamps = new Uint32Array(1024);
  private generation = 1;
  keys = new Uint32Array(512);
  counts = new Int32Array(512);
  size = 0;

  reset(): void {
    this.size = 0;
    this.generation += 1;
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  bump(key: number): void {
    const mask = this.slots.length - 1;
    let slot = key & mask;
    while (this.stamps[slot] === this.generation) {
      const entry = this.slots[slot]! - 1;
      if (this.keys[entry] === key) {
        this.counts[entry]! += 1;
        return;
      }
      slot = (slot + 1) & mask;
    }
    if (this.size === this.keys.length) this.growEntries();
    this.keys[this.size] = key;
    this.counts[this.size] = 1;
    this.size += 1;
    this.stamps[slot] = this.generation;
    this.slots[slot] = this.size;
    // Kept at most half full, so probes stay short.
    if (this.size * 2 > this.slots.length) this.growSlots();
  }

  private growEntries(): void {
    const keys = new Uint32Array(this.keys.length * 2);
    keys.set(this.keys);
    const counts = new Int32Array(this.counts.length * 2);
    counts.set(this.counts);
    this.keys = keys;
    this.counts = counts;
  }

  private growSlots(): void {
    const capacity = this.slots.length * 2;
    this.slots = new Int32Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.generation = 1;
    const mask = capacity - 1;
    for (let entry = 0; entry < this.size; entry += 1) {
      let slot = this.keys[entry]! & mask;
      while (this.stamps[slot] === this.generation) slot = (slot + 1) & mask;
      this.stamps[slot] = this.generation;
      this.slots[slot] = entry + 1;
    }
  }
}

/** FNV-1a of the three characters of ` ${word} ` from `start`, without building the padded word. */
function paddedTrigram(word: string, start: number): number {
  let h = TRIGRAM_SEED;
  for (let i = start; i < start + 3; i += 1) {
    h ^= i === 0 || i === word.length + 1 ? 0x20 : word.charCodeAt(i - 1);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

function countUnigrams(words: string[], counts: FeatureCounts): void {
  for (const word of words) counts.bump(mix(fnv(UNIGRAM_SEED, word)));
}

function countBigrams(words: string[], counts: FeatureCounts): void {
  for (let i = 1; i < words.length; i += 1) {
    counts.bump(mix(fnv(fnv(fnv(BIGRAM_SEED, words[i - 1]!), " "), words[i]!)));
  }
}

function countTrigrams(words: string[], counts: FeatureCounts): void {
  for (const word of words) {
    for (let j = 0; j + 3 <= word.length + 2; j += 1) counts.bump(mix(paddedTrigram(word, j)));
  }
}

/** Feature kinds in the order their terms are added into the vector (the sums depend on it). */
const FEATURE_KINDS = [countUnigrams, countBigrams, countTrigrams];

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
  private readonly counts = new FeatureCounts();

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
    const norm = this.countInto(text);
    const vector = this.scratch;
    const out = new Array<number>(vector.length);
    for (let i = 0; i < vector.length; i += 1) out[i] = norm > 0 ? vector[i]! / norm : 0;
    return out;
  }

  /**
   * embedOne's values written into `target` from `offset`, bit for bit the same, without a
   * number[] per text: the built-ins' thread fills one flat buffer per request with them.
   */
  embedInto(text: string, target: Float64Array, offset: number): void {
    const norm = this.countInto(text);
    const vector = this.scratch;
    for (let i = 0; i < vector.length; i += 1) target[offset + i] = norm > 0 ? vector[i]! / norm : 0;
  }

  /** The text's unnormalised feature sums in the scratch vector; returns their L2 norm. */
  private countInto(text: string): number {
    // One scratch vector for every call: a relationship-heavy graph embeds hundreds of thousands
    // of short texts, and a fresh typed array per text kept the garbage collector busy.
    const vector = this.scratch;
    vector.fill(0);
    const words = lexicalWords(text);
    FEATURE_KINDS.forEach((countKind, kind) => {
      const weight = WEIGHTS[kind]!;
      const counts = this.counts;
      counts.reset();
      countKind(words, counts);
      for (let entry = 0; entry < counts.size; entry += 1) {
        const h = counts.keys[entry]!;
        const sign = h & 0x80000000 ? -1 : 1;
        vector[h % this.dimension]! += sign * weight * (1 + Math.log(counts.counts[entry]!));
      }
    });
    let norm = 0;
    for (let i = 0; i < vector.length; i += 1) norm += vector[i]! * vector[i]!;
    return Math.sqrt(norm);
  }
}
