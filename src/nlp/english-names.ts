import { describeName, type NameSpan } from "./english-name-kind.js";
import type { Token } from "./english-tokens.js";
import {
  CALENDAR_WORDS,
  CONNECTOR_ARTICLES,
  FUNCTION_TAGS,
  hasAny,
  NAME_CONNECTORS,
  NAME_TAGS,
  PERSON_TAGS,
  PLACE_TAGS,
  SENTENCE_START_TAGS,
  STOP_ADJECTIVES,
} from "./english-words.js";

const MAX_NAME_TOKENS = 8;

export function isCapitalised(token: Token): boolean {
  return /^\p{Lu}/u.test(token.text) && token.text !== "I";
}

function isNumber(token: Token): boolean {
  return /^\d[\d.,]*$/.test(token.text);
}

function isPossessive(token: Token): boolean {
  return /['’]s?$/.test(token.text);
}

/** Short lower-case syllables after a hyphen belong to the name: "Song Il-gon", "Kim Jong-un". */
function isNameSyllable(token: Token): boolean {
  return /^\p{Ll}{1,5}$/u.test(token.text);
}

/**
 * A tab or a run of three spaces: the gap between two cells of a table row as text (HTML tables
 * are laid out so), which no name spans ("Heliotrope Robotics   2020" is a name and a year).
 */
const COLUMN_GAP = /\t| {3}/;

/**
 * Whether a name may continue from `a` to the word after it: a plain space or a hyphen joins
 * ("Jean-Luc", "GPT-4"); so does the dot of an abbreviation or initial ("St. Louis", "J. R. R.");
 * any other punctuation, a line break, a table's column gap, or an opening quote or bracket ends the name. A possessive
 * continues a common word ("Woman's Viewpoint"), not a person or place ("Nolan's Inception").
 */
function joins(a: Token, b: Token): boolean {
  if (b.pre.trim() !== "") return false;
  if (isPossessive(a) && (hasAny(a.tags, PERSON_TAGS) || hasAny(a.tags, PLACE_TAGS))) return false;
  const post = a.post;
  if (post === "-") return true;
  if (/^[^\S\n]*$/.test(post)) return post.length > 0 && !COLUMN_GAP.test(post);
  if (/^\.[^\S\n]+$/.test(post)) return a.tags.has("Abbreviation") || /^\p{Lu}$/u.test(a.text);
  return false;
}

/** Index of the last token of the name starting at `first`. */
function nameEnd(tokens: Token[], first: number): number {
  let last = first;
  let run = first;
  while (last + 1 < tokens.length && last - first < MAX_NAME_TOKENS - 1) {
    const current = tokens[last]!;
    const next = tokens[last + 1]!;
    if (!joins(current, next)) break;
    if (isCapitalised(next) || isNumber(next) || (current.post === "-" && isNameSyllable(next))) {
      last++;
      continue;
    }
    // "Li Yujie of Henan University" is a person and a university; "Haymo of Faversham" one name.
    if (last > run && tokens.slice(run, last + 1).some((t) => hasAny(t.tags, PERSON_TAGS))) break;
    const resume = afterConnectors(tokens, last + 1);
    if (resume < 0) break;
    last = resume;
    run = resume;
  }
  return last;
}

/** "of", "of the", "de la" followed by a capitalised word: the index of that word, else -1. */
function afterConnectors(tokens: Token[], at: number): number {
  const first = tokens[at];
  if (!first || !NAME_CONNECTORS.has(first.normal)) return -1;
  let next = at + 1;
  const article = tokens[next];
  if (article && CONNECTOR_ARTICLES.has(article.normal) && joins(first, article)) next++;
  const word = tokens[next];
  const before = tokens[next - 1]!;
  return word && isCapitalised(word) && joins(before, word) ? next : -1;
}

const OPENING_QUOTE = /["“]$/;
const CLOSING_QUOTE = /^["”]/;
const MAX_QUOTED_TOKENS = 10;

/**
 * A quoted title such as "Welcome to the Show": a capitalised word right after an opening quote,
 * whose closing quote follows within a few words with no sentence punctuation before it.
 */
function quotedTitleEnd(tokens: Token[], first: number): number {
  if (!OPENING_QUOTE.test(tokens[first]!.pre)) return -1;
  for (let k = first; k < tokens.length && k - first < MAX_QUOTED_TOKENS; k++) {
    const post = tokens[k]!.post;
    if (CLOSING_QUOTE.test(post)) return k;
    if (/[.!?;:()\n"“”]/.test(post)) return -1;
  }
  return -1;
}

/** True where a capitalised first word may just be the sentence's first word. */
function startsSentence(tokens: Token[], index: number): boolean {
  if (index === 0) return true;
  const post = tokens[index - 1]!.post;
  return post.includes("\n") || /[:;]/.test(post);
}

/**
 * Finds the proper names of one sentence: runs of capitalised words (with connectors such as "of"
 * between them), minus leading function words ("The", "In"). A capitalised word that only starts
 * the sentence counts as a name when compromise knows it as one, or when the text capitalises it
 * elsewhere too (`evidence`).
 */
export function findNames(tokens: Token[], text: string, evidence: NameEvidence): NameSpan[] {
  const spans: NameSpan[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!isCapitalised(tokens[i]!)) {
      i++;
      continue;
    }
    const quoted = quotedTitleEnd(tokens, i);
    const last = quoted >= 0 ? quoted : nameEnd(tokens, i);
    const span = trimName(tokens, i, last, evidence);
    if (span) spans.push(describeName(tokens, span.first, span.last, text, tokens[last + 1]));
    i = last + 1;
  }
  return spans;
}

function trimName(
  tokens: Token[],
  start: number,
  last: number,
  evidence: NameEvidence,
): { first: number; last: number } | null {
  const atSentenceStart = startsSentence(tokens, start) && !opensKnownName(tokens, start, last, evidence);
  let first = start;
  while (first <= last && stripsAtStart(tokens[first]!, atSentenceStart && first === start)) first++;
  // A title such as "Dr." starts the name after it: "Yesterday Dr. Smith" → "Smith".
  for (let k = last - 1; k > first; k--) {
    if (tokens[k]!.tags.has("Honorific")) {
      first = k + 1;
      break;
    }
  }
  if (first > last) return null;
  // A lone capitalised function word inside a sentence ("In", "And" after a colon) is no name.
  if (first === last && hasAny(tokens[first]!.tags, FUNCTION_TAGS) && !hasAny(tokens[first]!.tags, NAME_TAGS))
    return null;
  const words = tokens.slice(first, last + 1);
  if (words.every((t) => isNumber(t) || CALENDAR_WORDS.has(t.normal) || /^\p{Lu}\.?$/u.test(t.text)))
    return null;
  if (!isCapitalised(words[0]!)) return null;
  const lone = first === last && atSentenceStart && first === start;
  if (lone && !hasAny(words[0]!.tags, NAME_TAGS) && !evidence.midSentenceCaps.has(words[0]!.text))
    return null;
  return { first, last };
}

/**
 * Whether an ordinary word opening a sentence ("Verdant" in "Verdant Markets opened a store") is
 * the first word of the capitalised run after it, not just the sentence's first word: the text
 * writes the two inside a sentence too ("at Verdant Markets"), or the same run, an ordinary
 * adjective before capitalised words, opens several sentences. Vague adjectives ("Early",
 * "Many") and runs ending in a demonym ("Ancient Greek") stay left out: "Early Roman history" is
 * a period's history, not a name.
 */
function opensKnownName(tokens: Token[], start: number, last: number, evidence: NameEvidence): boolean {
  const opening = tokens[start]!;
  const next = tokens[start + 1];
  if (last === start || !next || !isCapitalised(next) || hasAny(opening.tags, FUNCTION_TAGS)) return false;
  if (evidence.midSentencePairs.has(pairKey(opening, next))) return true;
  return (
    (evidence.openingRuns.get(runKey(tokens, start, last)) ?? 0) >= 2 &&
    opening.tags.has("Adjective") &&
    !STOP_ADJECTIVES.has(opening.normal) &&
    !tokens.slice(start + 1, last + 1).some((t) => t.tags.has("Demonym"))
  );
}

/**
 * Articles, titles such as "Dr." and numbers never open a name. Inside a sentence other capitalised
 * words do ("Do Lafzon Ki Kahani", "Alice In Chains"); as a sentence's first word, which is always
 * capitalised, a function word or an ordinary verb, adverb or adjective does not.
 */
function stripsAtStart(token: Token, sentenceStart: boolean): boolean {
  if (token.tags.has("Honorific") || token.tags.has("Determiner") || isNumber(token)) return true;
  if (!sentenceStart || hasAny(token.tags, NAME_TAGS)) return false;
  return hasAny(token.tags, FUNCTION_TAGS) || hasAny(token.tags, SENTENCE_START_TAGS);
}

/** What the whole text shows of its capitalised words, read before any sentence's names. */
export interface NameEvidence {
  /** Capitalised words that are not the first word of their sentence: evidence that a word is a name. */
  midSentenceCaps: ReadonlySet<string>;
  /** Two capitalised words in a row, not opening their sentence ("at Verdant Markets"). */
  midSentencePairs: ReadonlySet<string>;
  /** The capitalised runs that open sentences, with the number of sentences each opens. */
  openingRuns: ReadonlyMap<string, number>;
}

function pairKey(a: Token, b: Token): string {
  return `${a.text} ${b.text}`;
}

function runKey(tokens: Token[], first: number, last: number): string {
  return tokens
    .slice(first, last + 1)
    .map((t) => t.text)
    .join(" ");
}

export function nameEvidence(sentences: Token[][]): NameEvidence {
  const midSentenceCaps = new Set<string>();
  const midSentencePairs = new Set<string>();
  const openingRuns = new Map<string, number>();
  for (const tokens of sentences) {
    tokens.forEach((token, index) => {
      if (!isCapitalised(token)) return;
      if (startsSentence(tokens, index)) {
        const key = runKey(tokens, index, nameEnd(tokens, index));
        openingRuns.set(key, (openingRuns.get(key) ?? 0) + 1);
        return;
      }
      midSentenceCaps.add(token.text);
      const next = tokens[index + 1];
      if (next && isCapitalised(next) && joins(token, next)) midSentencePairs.add(pairKey(token, next));
    });
  }
  return { midSentenceCaps, midSentencePairs, openingRuns };
}
