import { entityKey } from "../merge/keys.js";
import {
  LEADING_PUNCTUATION,
  opensWithPersonalPronoun,
  opensWithSubjectPronoun,
} from "../nlp/reference-opening.js";
import type { TextAnalysis } from "../nlp/types.js";
import type { ChunkEntity } from "./offline-entities.js";

/**
 * The person each sentence opening with he, she, his, her (他, 她) speaks of: sentence index to the
 * person's entity key, or null when the chunk does not tell who. The passage's title entity when it
 * may be a person (a passage titled with a name is about it), otherwise the person the last
 * sentence opening with a person's name named ("Helena Marsh grew up in Hull. She studied..."):
 * a pronoun sentence carries that person on to the next.
 */
export function personalPronounReferents(
  analysis: TextAnalysis,
  entities: readonly ChunkEntity[],
): Map<number, string | null> {
  const people = new Set(entities.filter((e) => e.kind === "person").map((e) => e.key));
  const title = entities.find((e) => e.isTitle && (e.kind === "person" || e.kind === "concept"));
  const referents = new Map<number, string | null>();
  let current: string | null = title?.key ?? null;
  analysis.sentences.forEach((sentence, index) => {
    if (opensWithPersonalPronoun(sentence.text)) {
      referents.set(index, current);
      return;
    }
    if (title) return;
    const opening = openingName(analysis, index);
    if (opening !== null) current = people.has(opening) ? opening : null;
  });
  return referents;
}

/**
 * A full name (two words or more) opening a sentence that the next one continues with he or she is
 * a person's, whatever its words suggested: compromise reads "Helena Marsh" as a place (marsh
 * ends place names). Organisations keep their class: their words say it.
 */
export function markPeopleByPronoun(analysis: TextAnalysis, entities: readonly ChunkEntity[]): void {
  const byKey = new Map(entities.map((e) => [e.key, e]));
  analysis.sentences.forEach((sentence, index) => {
    if (index === 0 || !opensWithSubjectPronoun(sentence.text)) return;
    const opening = openingName(analysis, index - 1);
    const entity = opening === null ? undefined : byKey.get(opening);
    if (entity && (entity.kind === "location" || entity.kind === "concept") && entity.name.includes(" "))
      entity.kind = "person";
  });
}

/** The entity key of the name a sentence opens with, if it opens with one. */
function openingName(analysis: TextAnalysis, index: number): string | null {
  const sentence = analysis.sentences[index]!;
  const named = analysis.mentions.filter((m) => m.sentence === index && m.named);
  if (named.length === 0) return null;
  const first = named.reduce((a, b) => (b.start < a.start ? b : a));
  const before = sentence.text.slice(0, first.start - sentence.start);
  return before.replace(LEADING_PUNCTUATION, "").trim() === "" ? entityKey(first.name) : null;
}
