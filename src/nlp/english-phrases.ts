import { isCapitalised } from "./english-names.js";
import { infinitive, singular, type Token } from "./english-tokens.js";
import {
  FUNCTION_WORDS,
  GENERIC_NOUNS,
  hasAny,
  LIGHT_VERBS,
  NON_PHRASE_TAGS,
  STOP_ADJECTIVES,
} from "./english-words.js";
import type { ContentWord } from "./types.js";

/** A common noun phrase of one sentence, tokens [first, last], named by its lemma ("body part"). */
export interface PhraseSpan {
  first: number;
  last: number;
  lemma: string;
}

const MAX_PHRASE_WORDS = 4;

function isNoun(token: Token): boolean {
  return token.tags.has("Noun") && !hasAny(token.tags, NON_PHRASE_TAGS) && !FUNCTION_WORDS.has(token.normal);
}

function isAdjective(token: Token): boolean {
  return token.tags.has("Adjective") && !hasAny(token.tags, NON_PHRASE_TAGS);
}

/** Inside a phrase only spaces and hyphens may separate words; a possessive ends the phrase. */
function continues(a: Token, b: Token): boolean {
  if (b.pre.trim() !== "" || /['’]s?$/.test(a.text)) return false;
  return a.post === "-" || /^[^\S\n]+$/.test(a.post);
}

/**
 * Common noun phrases (adjectives + nouns ending in a noun, as in "collectible dice game"), with
 * determiners, pronouns, numbers and vague adjectives left out and names (`inName`) excluded. The
 * head noun is singularised so "body parts" and "body part" meet.
 */
export function findPhrases(tokens: Token[], inName: ReadonlySet<number>): PhraseSpan[] {
  const phrases: PhraseSpan[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!startsPhrase(tokens[i]!, i, inName)) {
      i++;
      continue;
    }
    let last = i;
    while (
      last + 1 < tokens.length &&
      continues(tokens[last]!, tokens[last + 1]!) &&
      startsPhrase(tokens[last + 1]!, last + 1, inName)
    ) {
      last++;
    }
    const phrase = trimPhrase(tokens, i, last);
    if (phrase) phrases.push(phrase);
    i = last + 1;
  }
  return phrases;
}

function startsPhrase(token: Token, index: number, inName: ReadonlySet<number>): boolean {
  if (inName.has(index)) return false;
  // A capitalised word inside a sentence that is not part of a name is left alone, not guessed at.
  if (index > 0 && isCapitalised(token)) return false;
  return isNoun(token) || isAdjective(token);
}

function trimPhrase(tokens: Token[], start: number, end: number): PhraseSpan | null {
  let first = start;
  let last = end;
  while (last >= first && !isNoun(tokens[last]!)) last--;
  // "full-scale production" keeps "full": a hyphen makes the adjective part of a compound.
  while (
    first <= last &&
    !isNoun(tokens[first]!) &&
    STOP_ADJECTIVES.has(tokens[first]!.normal) &&
    tokens[first]!.post !== "-"
  ) {
    first++;
  }
  if (first > last) return null;
  first = Math.max(first, last - MAX_PHRASE_WORDS + 1);
  const words = tokens.slice(first, last + 1);
  const forms = words.map((t) => t.normal.replace(/['’]s?$/, ""));
  if (tokens[last]!.tags.has("Plural")) forms[forms.length - 1] = singular(forms[forms.length - 1]!);
  if (forms.length === 1 && (GENERIC_NOUNS.has(forms[0]!) || forms[0]!.length < 3)) return null;
  const lemma = forms
    .map((form, k) => (k > 0 && words[k - 1]!.post === "-" ? `-${form}` : ` ${form}`))
    .join("")
    .trim();
  return /\p{L}/u.test(lemma) ? { first, last, lemma } : null;
}

/** Nouns and (non-auxiliary) verbs of a sentence, lemmatised, skipping words inside names. */
export function contentWords(tokens: Token[], sentence: number, inName: ReadonlySet<number>): ContentWord[] {
  const words: ContentWord[] = [];
  tokens.forEach((token, index) => {
    if (inName.has(index) || token.normal.length < 3) return;
    if (isNoun(token) && !(index > 0 && isCapitalised(token))) {
      const lemma = token.tags.has("Plural") ? singular(token.normal) : token.normal;
      if (!GENERIC_NOUNS.has(lemma))
        words.push({ lemma: lemma.replace(/['’]s?$/, ""), pos: "noun", sentence });
    } else if (token.tags.has("Verb") && !hasAny(token.tags, ["Copula", "Auxiliary", "Modal"])) {
      const lemma = infinitive(token.normal, token.tags);
      if (!LIGHT_VERBS.has(lemma)) words.push({ lemma, pos: "verb", sentence });
    }
  });
  return words;
}
