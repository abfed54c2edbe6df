import type { AnswerPassage } from "./passages.js";
import { contentTerms } from "./terms.js";

/** Subjects shorter than this match inside unrelated words ("Io" in "Ionia"). */
const MIN_LATIN_SUBJECT = 3;
const MIN_HAN_SUBJECT = 2;

/**
 * For each passage, the terms that the other passages naming its subject hold and it lacks. A
 * two-hop question ("Where was the founder of the company that makes the Gullwing born?") names
 * one entity; its passage names a second (the founder), whose own passage holds the answer. That
 * bridge passage shares few words with the question, but the passage that leads to it does: the
 * words it lacks stand in for what it is known by. Words it has itself earn nothing more, so a
 * passage that many others name is not lifted over the ones that state the answer.
 */
export function bridgeTerms(passages: AnswerPassage[], questionNames: ReadonlySet<string>): Set<string>[] {
  return passages.map((passage) => {
    const terms = new Set<string>();
    const subject = passage.subject;
    if (!subject || !longEnough(subject)) return terms;
    // A passage naming the question's own entity is a first hop, not a bridge: passages name
    // each other both ways, and the first hop must not borrow the second hop's words.
    const own = ownTerms(passage);
    if (questionNames.size === 0 || [...questionNames].some((t) => own.has(t))) return terms;
    const needle = fold(subject);
    for (const other of passages) {
      if (other === passage || other.subject === subject || !fold(other.text).includes(needle)) continue;
      for (const sentence of other.sentences) {
        for (const t of sentence.terms) terms.add(t);
        for (const t of sentence.subjectTerms) terms.add(t);
      }
      for (const t of contentTerms(other.subject ?? "")) terms.add(t);
    }
    for (const t of own) terms.delete(t);
    return terms;
  });
}

function ownTerms(passage: AnswerPassage): Set<string> {
  const own = new Set(contentTerms(passage.subject ?? ""));
  for (const sentence of passage.sentences) for (const t of sentence.terms) own.add(t);
  return own;
}

function longEnough(subject: string): boolean {
  return /\p{Script=Han}/u.test(subject)
    ? [...subject].length >= MIN_HAN_SUBJECT
    : subject.length >= MIN_LATIN_SUBJECT;
}

function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}
