import type { Term } from "compromise/misc";
import { BoundedMemo } from "../util/bounded-memo.js";
import { type Compromise, loadCompromise } from "./compromise.js";

let compromise: Compromise | undefined;

/**
 * compromise builds its lexicon as it loads, which costs more than many whole commands (status,
 * help), so it is loaded by the first text analysed. Its CommonJS build keeps this synchronous.
 */
function nlp(): Compromise {
  compromise ??= loadCompromise();
  return compromise;
}

/** One word as compromise tokenised and tagged it, with its position in the analysed text. */
export interface Token {
  text: string;
  /** Lower-cased, unicode-normalised form. */
  normal: string;
  tags: ReadonlySet<string>;
  /** Punctuation and whitespace before and after the word. */
  pre: string;
  post: string;
  start: number;
  end: number;
}

export interface TaggedSentence {
  tokens: Token[];
  start: number;
  end: number;
}

const NO_TAGS: ReadonlySet<string> = new Set();

/**
 * Splits English text into sentences of part-of-speech tagged words. Only compromise's lexicon
 * and pre-tagger run: its rule-based post-tagger costs three quarters of the time and mostly
 * refines what our capitalisation-based name finder decides anyway. `reading` is the text with
 * its wrapping line breaks made spaces (unwrapLines), so a hard-wrapped sentence stays whole.
 */
export function tagEnglish(reading: string): TaggedSentence[] {
  const doc = nlp().tokenize(reading).compute(["lexicon", "preTagger"]);
  const sentences: TaggedSentence[] = [];
  // compromise is lossless (pre + text + post over all terms rebuilds the input), so a running
  // sum gives every word's offset without its slower offset pass.
  let at = 0;
  let tokens: Token[] = [];
  const close = () => {
    const first = tokens[0];
    const last = tokens[tokens.length - 1];
    if (first && last) {
      const start = first.start - openingLength(first.pre);
      sentences.push({ tokens, start, end: last.end + sentenceEndLength(last.post) });
    }
    tokens = [];
  };
  for (const terms of doc.docs as Term[][]) {
    for (const term of terms) {
      const start = at + term.pre.length;
      const end = start + term.text.length;
      at = end + term.post.length;
      if (!term.text) continue;
      const { pre, post } = term;
      tokens.push({
        text: term.text,
        normal: term.normal,
        tags: term.tags ?? NO_TAGS,
        pre,
        post,
        start,
        end,
      });
      // A line break left in the reading ends a sentence even where compromise reads on
      // ("Brewing Co.\n\nThe brewery"); wrapping ones are spaces by now.
      if (post.includes("\n")) close();
    }
    close();
  }
  return sentences;
}

/** Keeps an opening quote or bracket in the sentence, not the whitespace before it. */
function openingLength(pre: string): number {
  return /[^\s]*$/.exec(pre)?.[0].length ?? 0;
}

/** Keeps the closing punctuation ("." "?" '."') in the sentence, not the whitespace after it. */
function sentenceEndLength(post: string): number {
  return /^[^\s]*/.exec(post)?.[0].length ?? 0;
}

interface CompromiseInternals {
  model: {
    one: { lexicon: Record<string, string | string[]> };
    two: { orgWords: Record<string, boolean>; placeWords: Record<string, boolean> };
  };
  methods: {
    two: {
      transform: {
        noun: { toSingular(word: string, model: object): string };
        verb: { toInfinitive(word: string, model: object, tense?: string): string };
      };
    };
  };
}

let loadedInternals: CompromiseInternals | undefined;

// compromise types its internals as `object`; this names the few parts we use.
function internals(): CompromiseInternals {
  loadedInternals ??= { model: nlp().model(), methods: nlp().methods() } as CompromiseInternals;
  return loadedInternals;
}

/** Words that make an unknown capitalised name an organisation ("... University") or place ("... River"). */
export function isOrganizationWord(normal: string): boolean {
  return internals().model.two.orgWords[normal] === true;
}

export function isPlaceWord(normal: string): boolean {
  return internals().model.two.placeWords[normal] === true;
}

/** An adjective of compromise's lexicon ("public"), not one guessed from its ending ("Osric"). */
export function isLexiconAdjective(normal: string): boolean {
  return internals().model.one.lexicon[normal] === "Adjective";
}

/** Words that end like a plural but are not one ("species" would become "specy"). */
const NOT_PLURAL = /(ss|us|is|ics|series|species|news)$/;

/**
 * Singular nouns ending in a plain "s" that compromise's lexicon does not know: it takes them for
 * plurals ("lens" -> "len") and their "-ses" plural for a plural of "-se" ("lenses" -> "lense").
 */
const S_ENDING_SINGULARS = new Set([
  "alias",
  "atlas",
  "bias",
  "canvas",
  "chaos",
  "cosmos",
  "ethos",
  "gas",
  "lens",
  "pancreas",
  "pathos",
  "thermos",
]);

/**
 * Lemmas by word (and verb form): compromise's rules run once per distinct word instead of once per
 * occurrence, since a corpus repeats a few thousand words over and over. Bounded, so a huge run does
 * not keep every word it ever saw.
 */
const singulars = new BoundedMemo<string, string>(50_000);
const infinitives = new BoundedMemo<string, string>(50_000);

export function singular(word: string): string {
  if (NOT_PLURAL.test(word) || S_ENDING_SINGULARS.has(word)) return word;
  return singulars.get(word, () => {
    const stem = word.slice(0, -2);
    if (word.endsWith("es") && S_ENDING_SINGULARS.has(stem)) return stem;
    const result = internals().methods.two.transform.noun.toSingular(word, internals().model) || word;
    // compromise drops only the "s" of "-zzes" ("buzzes" -> "buzze"; "quizzes" -> "quiz" is right).
    return result.endsWith("zze") ? result.slice(0, -1) : result;
  });
}

/** compromise needs the form's tense; irregular participles ("given") have their own table. */
function verbForm(word: string, tags: ReadonlySet<string>): string | undefined {
  if (tags.has("Gerund")) return "Gerund";
  if (tags.has("PastTense") || tags.has("Participle")) {
    return tags.has("Participle") && !word.endsWith("ed") ? "Participle" : "PastTense";
  }
  return tags.has("PresentTense") ? "PresentTense" : undefined;
}

export function infinitive(word: string, tags: ReadonlySet<string>): string {
  const form = verbForm(word, tags);
  if (!form) return word;
  return infinitives.get(`${form} ${word}`, () => {
    const result = internals().methods.two.transform.verb.toInfinitive(word, internals().model, form);
    return result || word;
  });
}
