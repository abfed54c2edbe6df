import { describe, expect, it } from "vitest";
import { HashingEmbedder, lexicalWords } from "../../src/embedding/hashing-embedder.js";

// The embedder as it was first written (a Map per feature kind), kept here as the reference: the
// stored vectors of existing workspaces came from it, so the reworked counting must give the very
// same bits, not merely close ones.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
function fnv(state: number, text: string, start = 0, end = text.length): number {
  let h = state;
  for (let i = start; i < end; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
function referenceEmbedding(text: string, dimension: number): number[] {
  const seeds = [fnv(FNV_OFFSET, "u:"), fnv(FNV_OFFSET, "b:"), fnv(FNV_OFFSET, "c:")];
  const kinds = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  const bump = (counts: Map<number, number>, key: number) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const words = lexicalWords(text);
  words.forEach((word, i) => {
    bump(kinds[0]!, fnv(seeds[0]!, word));
    if (i > 0) bump(kinds[1]!, fnv(fnv(fnv(seeds[1]!, words[i - 1]!), " "), word));
    const padded = ` ${word} `;
    for (let j = 0; j + 3 <= padded.length; j += 1) bump(kinds[2]!, fnv(seeds[2]!, padded, j, j + 3));
  });
  const vector = new Float64Array(dimension);
  kinds.forEach((counts, kind) => {
    const weight = [1, 0.5, 0.25][kind]!;
    for (const [feature, count] of counts) {
      const h = mix(feature);
      const sign = h & 0x80000000 ? -1 : 1;
      vector[h % dimension]! += sign * weight * (1 + Math.log(count));
    }
  });
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(vector, (x) => (norm > 0 ? x / norm : 0));
}

/** A long text of many distinct words (thousands of features), some repeated. */
function longText(words: number): string {
  const parts: string[] = [];
  for (let i = 0; i < words; i += 1) parts.push(`w${(i * 7919) % (words / 2)}x${i % 13}`);
  return parts.join(" ");
}

describe("HashingEmbedder against the Map-based reference", () => {
  const texts = [
    "Marie Curie won two Nobel prizes; Marie Curie was born in Warsaw.",
    "",
    " ... ",
    "a",
    "the the the the cat",
    "北京大学位于北京市海淀区，今天的股票市场大幅下跌",
    "don't stop 3.14 ＧＲＡＰＨ Database café naïve",
    longText(5000),
  ];

  it.each([512, 256, 7])("gives bit-identical vectors at dimension %i, text after text", (dimension) => {
    const embedder = new HashingEmbedder(dimension);
    // Twice over, so the reused counting state of one text cannot leak into the next.
    for (const text of [...texts, ...texts.reverse()]) {
      expect(embedder.embedOne(text)).toEqual(referenceEmbedding(text, dimension));
    }
  });

  it("writes the same bits into a flat buffer (embedInto), leaving the rest of it alone", () => {
    const dimension = 64;
    const embedder = new HashingEmbedder(dimension);
    const flat = new Float64Array((texts.length + 2) * dimension).fill(7);
    for (const [row, text] of texts.entries()) embedder.embedInto(text, flat, (row + 1) * dimension);
    texts.forEach((text, row) => {
      const written = Array.from(flat.subarray((row + 1) * dimension, (row + 2) * dimension));
      expect(written).toEqual(referenceEmbedding(text, dimension));
    });
    expect(flat.subarray(0, dimension).every((x) => x === 7)).toBe(true);
    expect(flat.subarray((texts.length + 1) * dimension).every((x) => x === 7)).toBe(true);
  });
});
