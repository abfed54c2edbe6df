import type { AnswerPassage } from "./passages.js";
import { contentTerms } from "./terms.js";

/** Subjects shorter than this match inside unrelated words ("Io" in "Ionia"). */
const MIN_LATIN_SUBJECT = 3;
const MIN_HAN_SUBJECT = 2;

/**
 * For each passage, the question's names that it lacks but a passage naming its subject holds. A
 * two-hop question ("Who directed the film that was shot in Leland?") names one entity (Leland);
 * its passage names a second (the film), whose own passage holds the answer but never says
 * "Leland". That bridge passage is reached through the film, so it counts as naming Leland too
 * (at the scorer's bridge weight). A passage naming the question's entity itself is a first hop,
 * not a bridge: passages name each other both ways, and the first hop must not borrow from the
 * second. Only names pass through: the other question words must be the passage's own.
 */
export function bridgeTerms(passages: AnswerPassage[], questionNames: ReadonlySet<string>): Set<string>[] {
  return passages.map((passage) => {
    const terms = new Set<string>();
    const subject = passage.subject;
    if (!subject || !longEnough(subject) || questionNames.size === 0) return terms;
    const own = ownTerms(passage);
    if ([...questionNames].some((t) => own.has(t))) return terms;
    const needle = fold(subject);
    for (const other of passages) {
      if (other === passage || other.subject === subject || !fold(other.text).includes(needle)) continue;
      for (const sentence of other.sentences) {
        for (const t of sentence.terms) if (questionNames.has(t)) terms.add(t);
        for (const t of sentence.subjectTerms) if (questionNames.has(t)) terms.add(t);
      }
      for (const t of contentTerms(other.subject ?? "")) if (questionNames.has(t)) terms.add(t);
    }
    return terms;
  });
}

/**
 * The passages a quoted sentence leads to: those whose subject it names ("He played for the
 * Philadelphia Eagles" leads to the passage on the Philadelphia Eagles), other than its own and
 * those on something the question names itself (a first hop, matched on its own words). The
 * second hop of a bridge question ("...an NFL team based in what state?") is answered there.
 */
export function passagesNamedBy(
  sentence: string,
  from: AnswerPassage,
  passages: AnswerPassage[],
  question: string,
): AnswerPassage[] {
  const text = fold(sentence);
  const asked = fold(question);
  return passages.filter((p) => {
    const subject = p.subject;
    if (p === from || !subject || !longEnough(subject) || subject === from.subject) return false;
    const needle = fold(subject);
    return text.includes(needle) && !asked.includes(needle);
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
