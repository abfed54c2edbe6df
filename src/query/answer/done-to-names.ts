import { agentNounVerb, contentTerms, contentWords } from "./terms.js";

/** Auxiliaries of a passive question ("When was Lumora Optics founded?"). */
const PASSIVE_AUXILIARY = /^(?:is|are|was|were|been)$/;
const ARTICLE = /^(?:the|a|an)$/;

/**
 * The verbs (as terms) a question asks about as done to one of the names it holds: "Who founded
 * Lumora Optics?", "When was Lumora Optics founded?", "Who is the founder of Lumora Optics?" (an
 * agent noun's verb) all ask about Lumora Optics being founded. A name that does the verb ("What
 * did Lumora Optics make?") or only qualifies another word ("the founder's birthplace in Vessen")
 * gives none. English only: word order is what tells.
 */
export function verbsDoneToNames(question: string, names: string[]): Set<string> {
  const folded = fold(question);
  const verbs = new Set<string>();
  for (const name of names) {
    const at = folded.indexOf(fold(name));
    if (at < 0) continue;
    const before = words(folded.slice(0, at));
    const after = words(folded.slice(at + fold(name).length));
    for (const term of verbBefore(before, after)) verbs.add(term);
  }
  return verbs;
}

/** What the words around a name say is done to it: see verbsDoneToNames. */
function verbBefore(before: string[], after: string[]): string[] {
  const words = before.at(-1) && ARTICLE.test(before.at(-1) as string) ? before.slice(0, -1) : before;
  const last = words.at(-1);
  if (!last) return [];
  if (PASSIVE_AUXILIARY.test(last)) return after[0] ? contentTerms(after[0]) : [];
  if (last === "of") {
    const [noun] = contentWords(words.at(-2) ?? "");
    const verb = noun && agentNounVerb(noun.term);
    return verb ? [verb] : [];
  }
  return contentTerms(last);
}

function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}'’-]+/gu) ?? [];
}

function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}
