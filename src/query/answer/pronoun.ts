import { ENGLISH_REFERENCE, LEADING_PUNCTUATION, opensWithReference } from "../../nlp/reference-opening.js";
import type { Mention } from "../../nlp/types.js";

/**
 * "It was founded in 2016 by ...", "The company was later sold to ...": the reference is what the
 * verb was done to. Possessives ("Its glass is ground in Vessen") are not: their noun is.
 */
const ENGLISH_PASSIVE =
  /^(?:it|he|she|they|(?:this|that|the)\s+\p{L}+)\s+(?:was|were|is|are|(?:has|have|had)\s+been)\s+(?:\p{L}+ly\s+)?(\p{L}+)/iu;

/** The verb of a sentence opening with a reference in the passive ("founded" in "It was founded..."). */
export function passiveVerbOfReference(sentence: string): string | null {
  const start = sentence.replace(LEADING_PUNCTUATION, "");
  if (!ENGLISH_REFERENCE.test(start)) return null;
  return ENGLISH_PASSIVE.exec(start)?.[1] ?? null;
}

/** A file name stands in for a missing title ("vessen.txt"): it is no subject. */
const FILE_NAME = /\.[a-z0-9]{1,5}$/i;

/**
 * The subject each sentence speaks of when it opens with a reference, else null: the passage's
 * title when it has one (a title names what the passage is about), otherwise the subject of the
 * sentence before, which is the name it opened with or the subject it referred to in turn.
 */
export function resolveSubjects(
  sentences: string[],
  title: string | undefined,
  mentionsOf: (sentence: string) => Mention[],
): (string | null)[] {
  const titled = subjectName(title);
  let previous: string | null = titled;
  return sentences.map((sentence) => {
    const refers = opensWithReference(sentence);
    const resolved = refers ? (titled ?? previous) : null;
    // Only an untitled passage needs the names its sentences open with (the tagger is the cost).
    if (!titled && !refers) previous = leadingName(sentence, mentionsOf(sentence)) ?? previous;
    return resolved;
  });
}

/**
 * The name a title gives its passage's subject: "Lilu (mythology)" is about Lilu, "Mara Quell:
 * a profile" about Mara Quell; a file name standing in for a title names nothing.
 */
export function subjectName(title: string | undefined): string | null {
  const trimmed = title?.trim() ?? "";
  if (!trimmed || FILE_NAME.test(trimmed)) return null;
  const name = trimmed
    .replace(/\s*[(（][^)）]*[)）]\s*$/, "")
    .split(/\s*[:：]\s|\s[-–—]\s/)[0]
    ?.trim();
  return name || trimmed;
}

/** The proper name a sentence opens with, if any: the subject of "Lumora Optics is a lens maker". */
function leadingName(sentence: string, mentions: Mention[]): string | null {
  const first = mentions.find((m) => m.named);
  if (!first) return null;
  const before = sentence.slice(0, first.start).replace(LEADING_PUNCTUATION, "");
  return before.trim() === "" ? first.name : null;
}
