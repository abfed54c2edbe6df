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

/**
 * The kinds of answer a sentence holds, leaving out whatever the question itself names: a "who"
 * question about Corvane Shipping is answered by a sentence naming a person other than the ones
 * it asked about. Names come from the offline NLP (person, location, other proper names), times
 * and numbers from their written forms.
 */
export function answerKindsIn(
  sentence: string,
  mentions: Mention[],
  questionTerms: ReadonlySet<string>,
): Set<AnswerKind> {
  const kinds = new Set<AnswerKind>();
  const fresh = (text: string) => contentTerms(text).some((t) => !questionTerms.has(t));
  for (const mention of mentions) {
    if (!mention.named || !fresh(mention.name)) continue;
    kinds.add("entity");
    const kind = nameKind(mention, sentence);
    if (kind) kinds.add(kind);
  }
  if (matchesFresh(sentence, YEAR, fresh) || matchesFresh(sentence, DATE_WORDS, fresh)) kinds.add("time");
  // A year says when, not how many.
  const count = (text: string) => fresh(text) && !/^(1\d{3}|20\d{2})$/.test(text);
  if (matchesFresh(sentence, NUMBER_WORDS, count)) kinds.add("number");
  return kinds;
}

/**
 * Person and location names as the tagger classes them; a proper name right after "in", "at" or
 * 在/于 reads as a place, and a multi-word name of another class as a possible person (the tagger
 * leaves many rare names, "Idris Vale", unclassed).
 */
function nameKind(mention: Mention, sentence: string): AnswerKind | undefined {
  if (mention.kind === "person") return "person";
  if (mention.kind === "location") return "place";
  if (mention.kind === "organization") return undefined;
  if (PLACE_BEFORE.test(sentence.slice(0, mention.start))) return "place";
  return /\s/.test(mention.name.trim()) ? "person" : undefined;
}

function matchesFresh(sentence: string, pattern: RegExp, fresh: (text: string) => boolean): boolean {
  return [...sentence.matchAll(pattern)].some((m) => fresh(m[0]));
}
