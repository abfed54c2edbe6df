import type { Mention } from "../../nlp/types.js";
import type { AnswerKind } from "./question-type.js";
import { contentTerms } from "./terms.js";

const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december";
const YEAR = /\b(1\d{3}|20\d{2})s?\b/g;
const DATE_WORDS = new RegExp(
  `\\b(${MONTHS})\\b|\\b\\d{1,4}\\s*(bc|bce|ad|ce)\\b|\\d+\\s*(年|月|日)|年代|世纪`,
  "gi",
);
const NUMBER_WORDS =
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen)\b|\d+(?:[.,]\d+)*|[一二两三四五六七八九十百千万亿]+(?=[个位家种名人座次岁年]|百分)/gi;
/** Words right before a place name: "born in Saltmere", "位于澄州". */
const PLACE_BEFORE = /\b(in|at|near|from|to|of)\s+(the\s+)?$|(在|于|位于|来自|出生在|生于)$/i;

/** How sure a sentence holds a kind: a tagged person, a year; or a guess from the words around a name. */
export const SURE = 1;
export const GUESSED = 0.5;

/**
 * The kinds of answer a sentence holds, each with how sure that is (SURE or GUESSED), leaving out
 * whatever the question itself names: a "who" question about Corvane Shipping is answered by a
 * sentence naming a person other than the ones it asked about. Names come from the offline NLP
 * (person, location, other proper names), times and numbers from their written forms.
 */
export function answerKindsIn(
  sentence: string,
  mentions: Mention[],
  questionTerms: ReadonlySet<string>,
): Map<AnswerKind, number> {
  const kinds = new Map<AnswerKind, number>();
  const note = (kind: AnswerKind, strength: number) =>
    kinds.set(kind, Math.max(kinds.get(kind) ?? 0, strength));
  const fresh = (text: string) => contentTerms(text).some((t) => !questionTerms.has(t));
  for (const mention of mentions) {
    if (!mention.named || !fresh(mention.name)) continue;
    note("entity", SURE);
    const kind = nameKind(mention, sentence);
    if (kind) note(kind.kind, kind.strength);
  }
  if (matchesFresh(sentence, YEAR, fresh) || matchesFresh(sentence, DATE_WORDS, fresh)) note("time", SURE);
  // A year says when, not how many.
  const count = (text: string) => fresh(text) && !/^(1\d{3}|20\d{2})$/.test(text);
  if (matchesFresh(sentence, NUMBER_WORDS, count)) note("number", SURE);
  return kinds;
}

/**
 * Person and location names as the tagger classes them are sure. The tagger leaves many rare
 * names unclassed ("Idris Vale", "Saltmere"): one right after "in", "at" or 在/于 is guessed a
 * place, one after "by" or any other multi-word one a person.
 */
function nameKind(mention: Mention, sentence: string): { kind: AnswerKind; strength: number } | undefined {
  if (mention.kind === "person") return { kind: "person", strength: SURE };
  if (mention.kind === "location") return { kind: "place", strength: SURE };
  if (mention.kind === "organization") return undefined;
  const before = sentence.slice(0, mention.start);
  if (PLACE_BEFORE.test(before)) return { kind: "place", strength: GUESSED };
  if (/\bby\s+$/i.test(before) || /\s/.test(mention.name.trim()))
    return { kind: "person", strength: GUESSED };
  return undefined;
}

function matchesFresh(sentence: string, pattern: RegExp, fresh: (text: string) => boolean): boolean {
  return [...sentence.matchAll(pattern)].some((m) => fresh(m[0]));
}
