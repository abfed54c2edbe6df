import { describe, expect, it } from "vitest";
import { wordLikeSegments } from "../../src/nlp/word-segments.js";
import { contentTerms } from "../../src/query/answer/terms.js";

const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const icuWords = (text: string) =>
  Array.from(segmenter.segment(text))
    .filter((s) => s.isWordLike)
    .map((s) => s.segment);
const fastWords = (text: string) => wordLikeSegments(text, () => segmenter);

/** Every string of `alphabet` from one character up to `maxLength`. */
function* stringsOver(alphabet: string[], maxLength: number): Generator<string> {
  let level = [""];
  for (let length = 1; length <= maxLength; length++) {
    level = level.flatMap((prefix) => alphabet.map((c) => prefix + c));
    yield* level;
  }
}

function mismatches(texts: Iterable<string>): string[] {
  const out: string[] = [];
  for (const text of texts) if (fastWords(text).join("|") !== icuWords(text).join("|")) out.push(text);
  return out;
}

describe("wordLikeSegments", () => {
  it("finds Intl.Segmenter's word-like segments on every short string over the ASCII word-break classes", () => {
    // One character of each class: letters, digits, "_", ":", ".", "'", ",", other punctuation, space.
    const alphabet = ["a", "1", "_", ":", ".", "'", ",", "-", " "];
    expect(mismatches(stringsOver(alphabet, 5))).toEqual([]);
  });

  it("agrees with Intl.Segmenter around characters it leaves to it (accents, marks after a space, CJK, Thai, emoji)", () => {
    const alphabet = ["a", "1", ".", "'", " ", "\n", "—", "é", "\u0301", "’", "中", "า", "\u200d", "👍"];
    expect(mismatches(stringsOver(alphabet, 4))).toEqual([]);
  });

  it("agrees on every printable ASCII character between words and numbers", () => {
    const texts: string[] = [];
    for (let code = 33; code < 127; code++) {
      const c = String.fromCharCode(code);
      for (const [left, right] of [
        ["ab", "cd"],
        ["12", "34"],
        ["ab", "12"],
        ["a_", "_b"],
      ])
        texts.push(`${left}${c}${right}`, `${left}${c}${c}${right}`, `${c}${left} ${right}${c}`);
    }
    expect(mismatches(texts)).toEqual([]);
  });

  it("agrees on running text with names in other scripts", () => {
    const text =
      "A community of 11 entities centred on Kraków — the 1,000.5 km² route (e.g. U.S. Route 66), " +
      "naïve café’s owner; Müller's 3:45 p.m. show — 東京 and กรุงเทพ, see_also: x__y __ _ \u200eend.";
    expect(fastWords(text)).toEqual(icuWords(text));
    expect(mismatches([text.toLowerCase(), text.normalize("NFKC")])).toEqual([]);
  });
});

describe("contentTerms", () => {
  it("keeps stems and forms of the segmenter's words, stopwords left out", () => {
    expect(contentTerms("Who founded the U.S. company Müller's in 1,999 — and where?")).toEqual([
      "found",
      "founded",
      "u.s",
      "compani",
      "company",
      "müller's",
      "1,999",
    ]);
  });
});
