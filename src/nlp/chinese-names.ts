import {
  isSurname,
  LEADING_FUNCTION_CHARS,
  mayBePersonName,
  NAME_TAG_KINDS,
  ORGANIZATION_SUFFIXES,
  PLACE_SUFFIXES,
  QUESTION_WORD,
  SPEECH_VERBS,
  suffixKind,
  TRAILING_FUNCTION_CHARS,
} from "./chinese-words.js";
import type { Mention, MentionKind } from "./types.js";

/** One jieba word with its part-of-speech tag and offsets in the analysed text. */
export interface Word {
  word: string;
  tag: string;
  start: number;
  end: number;
}

const HAN = /\p{Script=Han}/u;

const PERSON_TAGS = new Set(["nr", "nrt", "nrfg"]);
const NAME_DOTS = new Set(["·", "•", "・"]);

/**
 * jieba cuts transliterated names into pieces ("史蒂夫 · 乔布斯", "库比 蒂诺"): neighbouring name
 * pieces, with or without the middle dot between them, are joined into one name.
 */
export function joinTransliterations(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const previous = out[out.length - 1];
    const dot = NAME_DOTS.has(w.word) ? words[i + 1] : undefined;
    if (previous && PERSON_TAGS.has(previous.tag) && dot && PERSON_TAGS.has(dot.tag)) {
      out[out.length - 1] = {
        word: previous.word + w.word + dot.word,
        tag: "nr",
        start: previous.start,
        end: dot.end,
      };
      i++;
    } else if (previous?.tag === "nrt" && w.tag === "nrt") {
      out[out.length - 1] = { word: previous.word + w.word, tag: "nrt", start: previous.start, end: w.end };
    } else {
      out.push(w);
    }
  }
  return out;
}

/**
 * jieba reads a name's last character with the speech verb after it as a word it knows: 首席财务官
 * 李明说 → 李 / 明说. A surname tagged alone, then a word of one or two characters and a speech
 * verb, is the name and the verb again: 李明 / 说.
 */
export function splitSpeechVerbs(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const split = nameBeforeSpeechVerb(words[i]!, words[i + 1]);
    if (split) {
      out.push(...split);
      i++;
    } else {
      out.push(words[i]!);
    }
  }
  return out;
}

function nameBeforeSpeechVerb(surname: Word, next: Word | undefined): Word[] | null {
  // A word cut by a line break has no one-to-one offsets to split at.
  if (!next || surname.tag !== "nr" || !isSurname(surname.word) || next.end - next.start !== next.word.length)
    return null;
  const verb = SPEECH_VERBS.find((v) => next.word.endsWith(v) && next.word.length - v.length <= 2);
  if (!verb || next.word === verb) return null;
  const name = surname.word + next.word.slice(0, -verb.length);
  if (!mayBePersonName(name) || !/^\p{Script=Han}+$/u.test(name)) return null;
  const cut = next.end - verb.length;
  return [
    { word: name, tag: "nr", start: surname.start, end: cut },
    { word: verb, tag: "v", start: cut, end: next.end },
  ];
}

/** Tags jieba gives a given name it read apart from the surname: 周 / 文澜 (nrfg), 王 / 芳 (nr). */
const GIVEN_NAME_TAGS = new Set(["nr", "nrfg"]);
const GIVEN_NAME_TAGS_AFTER_SURNAME = new Set([...GIVEN_NAME_TAGS, "n"]);

/**
 * jieba reads a surname apart from a given name it knows as a word (周 / 文澜), or its HMM glues
 * the surname to the preposition before it (由周 / 文澜). A surname, alone or after a function
 * character, then a given name of one or two characters tagged a name, is one person's name.
 */
export function joinSurnames(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const joined = surnameAndGivenName(words[i]!, words[i + 1]);
    if (joined) {
      out.push(...joined);
      i++;
    } else {
      out.push(words[i]!);
    }
  }
  return out;
}

function surnameAndGivenName(first: Word, given: Word | undefined): Word[] | null {
  // A word cut by a line break has no one-to-one offsets to split at.
  if (!given || given.word.length > 2 || first.end - first.start !== first.word.length) return null;
  const lead = first.tag === "x" && LEADING_FUNCTION_CHARS.has(first.word[0]!) ? 1 : 0;
  if (first.tag !== "nr" && lead === 0) return null;
  // A surname jieba itself tagged a name's start may be followed by a given name it knows as a
  // noun (陈 / 光标); after a glued preposition, only a given name tagged a name counts.
  const givenTags = lead === 0 ? GIVEN_NAME_TAGS_AFTER_SURNAME : GIVEN_NAME_TAGS;
  if (!givenTags.has(given.tag) || (given.tag === "n" && given.word.length !== 2)) return null;
  const surname = first.word.slice(lead);
  const name = surname + given.word;
  if (!isSurname(surname) || !mayBePersonName(name) || !/^\p{Script=Han}+$/u.test(name)) return null;
  const person: Word = { word: name, tag: "nr", start: first.start + lead, end: given.end };
  if (lead === 0) return [person];
  return [{ word: first.word.slice(0, lead), tag: "p", start: first.start, end: first.start + lead }, person];
}

/**
 * Organisation endings that also end longer nouns jieba knows as words (船厂, 化工厂, 医学院); the
 * one-character endings 部, 局, 党, 队 end everyday words too (东部, 结局, 团队), so only 厂 counts.
 */
function endsInOrganizationWord(word: string): boolean {
  return ORGANIZATION_SUFFIXES.some(
    (suffix) => (suffix.length > 1 || suffix === "厂") && word.endsWith(suffix),
  );
}

/**
 * jieba cuts an organisation named after a place or a person into the name and a noun ending in an
 * organisation word (江宁 / 船厂, 南京 / 化工厂, 江宁 / 大学): the place is no entity of the text,
 * the organisation is. Joined into one word tagged an organisation (nt).
 */
export function joinOrganizationNames(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    if (next && (w.tag === "ns" || w.tag === "nr") && next.tag === "n" && endsInOrganizationWord(next.word)) {
      out.push({ word: w.word + next.word, tag: "nt", start: w.start, end: next.end });
      i++;
    } else {
      out.push(w);
    }
  }
  return out;
}

export function mention(
  name: string,
  kind: MentionKind,
  named: boolean,
  sentence: number,
  start: number,
  end: number,
): Mention {
  return { name, kind, named, sentence, start, end };
}

export function namesIn(words: Word[], sentence: number): Mention[] {
  const found: Mention[] = [];
  joinLatinNames(words).forEach((w, i, words) => {
    const kind = NAME_TAG_KINDS[w.tag];
    if (kind) {
      const suffixed = withSuffix(words, i)?.(sentence);
      found.push(mention(w.word, ownKind(w.word, kind, suffixed), true, sentence, w.start, w.end));
      if (suffixed) found.push(suffixed);
    } else if (w.tag === "x" && HAN.test(w.word)) {
      const guess = unknownName(w);
      if (guess) found.push(mention(guess.name, guess.kind, true, sentence, guess.start, guess.end));
    } else if (w.tag === "eng" && /\p{Lu}|\d/u.test(w.word) && w.word.length > 1) {
      found.push(mention(w.word, "concept", true, sentence, w.start, w.end));
    }
  });
  return found;
}

/**
 * jieba keeps each Latin word apart, with the space between as a word of its own: capitalised
 * words (or numbers after them) one space apart are one name again ("New York", "Quayside
 * Analytics", "GPT 4"), as the English analyzer reads them.
 */
function joinLatinNames(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const previous = out[out.length - 1];
    const next = words[i + 1];
    const continues =
      next?.tag === "eng" ? /^\p{Lu}/u.test(next.word) : next?.tag === "m" && /^\d+$/.test(next.word);
    if (previous?.tag === "eng" && /^\p{Lu}/u.test(previous.word) && w.word === " " && next && continues) {
      out[out.length - 1] = {
        word: `${previous.word} ${next.word}`,
        tag: "eng",
        start: previous.start,
        end: next.end,
      };
      i++;
    } else {
      out.push(w);
    }
  }
  return out;
}

/**
 * The class of a name jieba tagged: its own ending outweighs a person tag (jieba tags 高新区 a
 * person) and fills an open class, unless the name may be a person's (孙中山); a name whose class
 * jieba leaves open takes the one the word after it gives: 星河动力 of 星河动力公司.
 */
function ownKind(name: string, tagKind: MentionKind, suffixed: Mention | undefined): MentionKind {
  if (tagKind !== "person" && tagKind !== "concept") return tagKind;
  const bySuffix = suffixKind(name);
  if (bySuffix) return bySuffix;
  return tagKind === "concept" && suffixed ? suffixed.kind : tagKind;
}

/** "阿里巴巴" + "集团": the name with the organisation or place word after it, as its own mention. */
function withSuffix(words: Word[], i: number): ((sentence: number) => Mention) | null {
  const w = words[i]!;
  const next = words[i + 1];
  if (!next) return null;
  const kind = ORGANIZATION_SUFFIXES.includes(next.word)
    ? "organization"
    : PLACE_SUFFIXES.includes(next.word)
      ? "location"
      : null;
  if (!kind) return null;
  return (sentence) => mention(w.word + next.word, kind, true, sentence, w.start, next.end);
}

/**
 * A word jieba did not know (tag "x"): most often a name. Function characters its HMM glued on
 * are removed; surname, organisation and place endings decide the class.
 */
function unknownName(w: Word): { name: string; kind: MentionKind; start: number; end: number } | null {
  let start = 0;
  let end = w.word.length;
  while (end - start > 2 && LEADING_FUNCTION_CHARS.has(w.word[start]!)) start++;
  while (end - start > 2 && TRAILING_FUNCTION_CHARS.has(w.word[end - 1]!)) end--;
  const spoken = SPEECH_VERBS.find((v) => w.word.slice(start, end).endsWith(v));
  // "李明称": a speaker's name with the verb after it.
  if (spoken && mayBePersonName(w.word.slice(start, end - spoken.length))) end -= spoken.length;
  const name = w.word.slice(start, end);
  if (name.length < 2 || !/^\p{Script=Han}+$/u.test(name) || QUESTION_WORD.test(name)) return null;
  if (name.length === 2 && (LEADING_FUNCTION_CHARS.has(name[0]!) || TRAILING_FUNCTION_CHARS.has(name[1]!)))
    return null;
  const kind: MentionKind = suffixKind(name) ?? (mayBePersonName(name) ? "person" : "concept");
  return { name, kind, start: w.start + start, end: w.start + end };
}
