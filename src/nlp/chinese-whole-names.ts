import type { Word } from "./chinese-names.js";
import {
  endsWithAny,
  LEADING_FUNCTION_CHARS,
  mayBePersonName,
  PLACE_SUFFIXES,
  suffixKind,
  TRADE_WORDS,
  TRAILING_FUNCTION_CHARS,
} from "./chinese-words.js";

/**
 * jieba's dictionary does not know new organisation and product names, and cuts them into common
 * words ("星河动力" → 星河 / 动力), which then become entities of their own. A name is kept whole
 * when the document's title names it, or when the same run of two or three noun-like words comes
 * back in the passage: a repeated run of words the dictionary does not hold as one is a name,
 * provided one of its words is a name or a rare word ("星河"): a run of everyday words said twice
 * (首席 + 执行官, 市场 + 份额) is a title or a common term. A coined word followed by a trade word
 * ("青岚" + "科技") is a company's short name even said once.
 * Decided per passage, from the passage and its title only, so results never depend on what else
 * was indexed before.
 */

/** Tags of the words a name is cut into: nouns, names, and words the dictionary does not know. */
const NAME_PART_TAGS = new Set(["n", "nz", "nr", "nrt", "ns", "nt", "j", "x", "ng"]);
const HAN_ONLY = /^\p{Script=Han}+$/u;
const MIN_NAME_CHARS = 3;
const MAX_NAME_CHARS = 8;
const MAX_NAME_WORDS = 3;
/** Tags of everyday nouns (and abbreviations): a run of them is a name only with a rare one among them. */
const COMMON_NOUN_TAGS = new Set(["n", "ng", "j"]);

/** Whether the dictionary seldom or never sees a word (by its IDF), as in coined names. */
export type RareWord = (word: string) => boolean;

/**
 * Names to keep whole in this passage: the title's, runs that occur at least twice and hold a name
 * or a rare word, and coined words with a trade word after them.
 */
export function wholeNames(
  sentences: Word[][],
  knownNames: readonly string[],
  isRare: RareWord,
): Set<string> {
  const names = new Set(knownNames.filter((name) => HAN_ONLY.test(name) && name.length >= 2));
  const counts = new Map<string, { count: number; parts: Word[] }>();
  for (const words of sentences) {
    for (const parts of candidateRuns(words)) {
      const text = joinedText(parts);
      counts.set(text, { count: (counts.get(text)?.count ?? 0) + 1, parts });
    }
    for (const name of companyShortNames(words)) names.add(name);
  }
  for (const [run, { count, parts }] of counts)
    if (count >= 2 && holdsNameWord(parts, isRare)) names.add(run);
  return names;
}

/** A run with a name, an unknown word or a rare one among its words; everyday nouns alone name nothing. */
function holdsNameWord(parts: Word[], isRare: RareWord): boolean {
  return parts.some(
    (part) => !COMMON_NOUN_TAGS.has(part.tag) || (part.word.length >= 2 && isRare(part.word)),
  );
}

function joinedText(words: Word[]): string {
  return words.map((w) => w.word).join("");
}

/**
 * A word jieba did not know (tag x) made of Han characters, with no function character glued on
 * ("由林晓", "建了" are also tagged x).
 */
function isCoinedWord(word: Word): boolean {
  return (
    word.tag === "x" &&
    HAN_ONLY.test(word.word) &&
    word.word.length >= 2 &&
    word.word.length <= 3 &&
    !LEADING_FUNCTION_CHARS.has(word.word[0]!) &&
    !TRAILING_FUNCTION_CHARS.has(word.word.at(-1)!) &&
    !/[了着过]/u.test(word.word)
  );
}

/** "青岚" + "科技": a coined word and the trade word right after it, joined. */
function companyShortNames(words: Word[]): string[] {
  const found: string[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const [coined, trade] = [words[i]!, words[i + 1]!];
    if (isCoinedWord(coined) && TRADE_WORDS.has(trade.word)) found.push(coined.word + trade.word);
  }
  return found;
}

/** Runs of 2-3 adjacent name-part words. */
function candidateRuns(words: Word[]): Word[][] {
  const runs: Word[][] = [];
  for (let i = 0; i < words.length; i++) {
    for (let n = 2; n <= MAX_NAME_WORDS && i + n <= words.length; n++) {
      const parts = words.slice(i, i + n);
      if (!parts.every(isNamePart)) break;
      const length = joinedText(parts).length;
      if (length >= MIN_NAME_CHARS && length <= MAX_NAME_CHARS) runs.push(parts);
    }
  }
  return runs;
}

function isNamePart(word: Word): boolean {
  return NAME_PART_TAGS.has(word.tag) && HAN_ONLY.test(word.word);
}

/** The sentence's words with each run spelling one of `names` joined into one name word (longest first). */
export function joinWholeNames(words: Word[], names: ReadonlySet<string>): Word[] {
  if (names.size === 0) return words;
  const out: Word[] = [];
  for (let i = 0; i < words.length; ) {
    const n = longestNameAt(words, i, names);
    if (n < 2) {
      out.push(words[i]!);
      i++;
      continue;
    }
    const parts = words.slice(i, i + n);
    const word = joinedText(parts);
    out.push({ word, tag: nameTag(word, parts), start: parts[0]!.start, end: parts[n - 1]!.end });
    i += n;
  }
  return out;
}

function longestNameAt(words: Word[], i: number, names: ReadonlySet<string>): number {
  for (let n = Math.min(MAX_NAME_WORDS + 1, words.length - i); n >= 2; n--) {
    if (names.has(joinedText(words.slice(i, i + n)))) return n;
  }
  return 0;
}

/** The jieba tag the joined name gets, so the name finder classes it: person, place, organisation or brand. */
function nameTag(name: string, parts: Word[]): string {
  const bySuffix = suffixKind(name);
  if (bySuffix === "organization") return "nt";
  if (parts.length === 2 && isCoinedWord(parts[0]!) && TRADE_WORDS.has(parts[1]!.word)) return "nt";
  if (bySuffix === "location" || (endsWithAny(name, PLACE_SUFFIXES) && parts.at(-1)?.tag === "ns"))
    return "ns";
  if (parts[0]?.tag === "nr" && mayBePersonName(name)) return "nr";
  // Transliterated-name tag: a name whose class the words do not tell.
  return "nrt";
}
