import { describeName, type NameSpan } from "./english-name-kind.js";
import { isLexiconAdjective, isOrganizationWord, type Token } from "./english-tokens.js";
import {
  CALENDAR_WORDS,
  CONNECTOR_ARTICLES,
  FUNCTION_TAGS,
  hasAny,
  JOB_TITLES,
  NAME_CONNECTORS,
  NAME_OPENING_WORDS,
  NAME_TAGS,
  ORGANIZATION_TAGS,
  PERSON_TAGS,
  PLACE_TAGS,
  SENTENCE_START_TAGS,
  STOP_ADJECTIVES,
  TITLE_MODIFIERS,
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
    if (span) {
      const named = describeName(tokens, span.first, span.last, text, tokens[last + 1]);
      const { title } = span;
      const role = title && {
        text: text.slice(tokens[title.first]!.start, tokens[title.last]!.end).replace(/\s+/g, " "),
        first: title.first,
      };
      // The title does not decide the kind: "Osric Venn" stays as unclassed as "Professor Osric
      // Venn" was. Typed a person, it made a bystander's sentence the demo's answer to "who
      // founded it?" (the extractive answer counts a sure person over a guessed one).
      spans.push(role ? { ...named, role } : named);
    }
    i = last + 1;
  }
  return spans;
}

function trimName(
  tokens: Token[],
  start: number,
  last: number,
  evidence: NameEvidence,
): { first: number; last: number; title?: { first: number; last: number } } | null {
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
  // A name known whole ("General Mills", the document's title) keeps a title-like first word.
  const person = startsKnownName(tokens, first, last, evidence.knownNames)
    ? null
    : personAfterJobTitle(tokens, first, last);
  if (person === null) return { first, last };
  return { first: person, last, title: { first: titleStart(tokens, start, person - 1), last: person - 1 } };
}

function titleWord(token: Token): string {
  return token.normal.replace(/\.$/, "");
}

/**
 * "CEO Mara Okafor", "Vice President Kamala Harris", "Microsoft CEO Satya Nadella": the index of
 * the person's first word, right after the last job title of the name, else null. The words after
 * the title must be capitalised, with no connector ("Secretary of State"), title, organisation or
 * place among them ("General Motors", "President Hotel", "Captain America"), and be two words or
 * one the tagger knows as a person's: "General Mills" and "Director General" stay whole.
 */
function personAfterJobTitle(tokens: Token[], first: number, last: number): number | null {
  let title = -1;
  for (let k = first; k < last; k++) if (isJobTitle(tokens[k]!)) title = k;
  // "Katharine Sergeant Angell White", "Steven Dean Moore": after a first name it is a middle name.
  if (title < 0 || tokens.slice(first, title).some((t) => hasAny(t.tags, PERSON_TAGS))) return null;
  const rest = tokens.slice(title + 1, last + 1);
  const personal = rest.every(
    (t) =>
      isCapitalised(t) &&
      !TITLE_MODIFIERS.has(titleWord(t)) &&
      !JOB_TITLES.has(titleWord(t)) &&
      !hasAny(t.tags, ORGANIZATION_TAGS) &&
      !hasAny(t.tags, PLACE_TAGS) &&
      // "GNU General Public License", "National Premier Leagues": common words, no one's name.
      (hasAny(t.tags, PERSON_TAGS) || !(t.tags.has("Plural") || isLexiconAdjective(t.normal))),
  );
  // "Coach K": a lone initial is no name to keep.
  const named =
    rest.some((t) => t.text.length > 1) && (rest.length > 1 || hasAny(rest[0]!.tags, PERSON_TAGS));
  return personal && named ? title + 1 : null;
}

/** A job title, unless the tagger reads the word as part of a person's name here. */
function isJobTitle(token: Token): boolean {
  return JOB_TITLES.has(titleWord(token)) && !hasAny(token.tags, PERSON_TAGS);
}

/**
 * Where the title ending at `end` begins: back over title words and the capitalised words of the
 * title ("Chief Technology Officer", "Microsoft CEO"), not over a date or an opening word of the
 * sentence ("Yesterday CEO ...").
 */
function titleStart(tokens: Token[], start: number, end: number): number {
  let k = end;
  while (k > start && isTitlePart(tokens[k - 1]!)) k--;
  return k;
}

function isTitlePart(token: Token): boolean {
  const word = titleWord(token);
  if (JOB_TITLES.has(word) || TITLE_MODIFIERS.has(word)) return true;
  // Adjectives qualify a title ("Chief Financial Officer"); dates and adverbs open the sentence.
  const opening = SENTENCE_START_TAGS.filter((tag) => tag !== "Adjective");
  return isCapitalised(token) && !hasAny(token.tags, [...FUNCTION_TAGS, ...opening]);
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
  if (startsKnownName(tokens, start, last, evidence.knownNames)) return true;
  // "General Mills", "National Geographic", "Royal Mail": words that open organisations' names.
  if (NAME_OPENING_WORDS.has(opening.normal)) return true;
  const ordinary = opening.tags.has("Adjective") && !STOP_ADJECTIVES.has(opening.normal);
  // "United Airlines", "Southern Company": a run ending in an organisation's word is its name.
  if (ordinary && isOrganizationWord(tokens[last]!.normal)) return true;
  return (
    (evidence.openingRuns.get(runKey(tokens, start, last)) ?? 0) >= 2 &&
    ordinary &&
    !tokens.slice(start + 1, last + 1).some((t) => t.tags.has("Demonym"))
  );
}

/**
 * Whether a name the caller knows (the document's title: "General Mills") of two words or more is
 * written from `start`, within the run that ends at `last`.
 */
function startsKnownName(tokens: Token[], start: number, last: number, knownNames: readonly string[][]) {
  return knownNames.some(
    (words) =>
      words.length >= 2 &&
      start + words.length - 1 <= last &&
      words.every((word, k) => tokens[start + k]!.text === word),
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
  /** Names known before reading (the document's title), each as its words. */
  knownNames: readonly string[][];
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

export function nameEvidence(sentences: Token[][], knownNames: readonly string[] = []): NameEvidence {
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
  const knownWords = knownNames.map((name) => name.split(/\s+/).filter(Boolean));
  return { midSentenceCaps, midSentencePairs, openingRuns, knownNames: knownWords };
}
