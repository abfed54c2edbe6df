import type { Mention } from "../../nlp/types.js";
import type { AnswerPassage, AnswerSentence } from "./passages.js";
import { NAME_CONNECTORS } from "./question-type.js";
import { contentTerms, contentWords } from "./terms.js";

/**
 * A yes/no question about two named things: "Are Christopher Nolan and Sathish Kalathil both film
 * directors?" asks whether `predicate` holds of each; "Are Nantong and Jingdezhen situated in the
 * same province?" whether they share one (`same`).
 */
export interface YesNoQuestion {
  subjects: [string, string];
  predicate: string;
  same: boolean;
}

const BOTH_AND = /^(?:are|were|is|was)\s+both\s+(?:[^,]+,\s*)?(.+?)\s+and\s+(.+?),\s*(.+)$/i;
const X_AND_Y = /^(?:are|were|do|did)\s+(.+?)\s+and\s+(.+)$/i;

/**
 * Reads "Are X and Y both P?", "Are both <noun>, X and Y, P?" and "Are X and Y <...> the same N?";
 * null for any other question (Y is the capitalised name after "and", connectors inside kept).
 */
export function yesNoQuestion(question: string): YesNoQuestion | null {
  const body = question
    .normalize("NFKC")
    .trim()
    .replace(/[\s?]+$/, "");
  const listed = BOTH_AND.exec(body);
  if (listed) return reading(listed[1] ?? "", listed[2] ?? "", listed[3] ?? "");
  const pair = X_AND_Y.exec(body);
  if (!pair) return null;
  const rest = pair[2] ?? "";
  const second = leadingName(rest);
  if (!second) return null;
  const predicate = rest.slice(second.length).trim();
  if (!/^both\b/i.test(predicate) && !/\bsame\b/i.test(predicate)) return null;
  return reading(pair[1] ?? "", second, predicate);
}

/**
 * A negation in the predicate ("both not film directors"): its content words leave the "not" out,
 * so passages saying the predicate itself would read as a "Yes" to its negation.
 */
const NEGATION = /\b(?:not|never|no|neither|nor|none)\b|n't\b/i;

/**
 * A predicate going on past a comma, offering alternatives or asking a further question ("both
 * film directors, and where were they born?", "both singers or actors", "both capitals and which
 * is larger?"; a relative "who" stays: "both musicians who played jazz"): every content word of it is
 * not what each must be said to be.
 */
const FURTHER_CLAUSE = /,|\bor\b|\band\s+(?:which|who|whom|whose|what|where|when|why|how)\b/i;

function reading(first: string, second: string, predicate: string): YesNoQuestion | null {
  const subjects: [string, string] = [withoutArticle(first), withoutArticle(second)];
  const said = predicate.replace(/^both\s+/i, "");
  if (subjects.some((s) => contentTerms(s).length === 0) || contentTerms(said).length === 0) return null;
  if (NEGATION.test(said) || FURTHER_CLAUSE.test(said)) return null;
  return { subjects, predicate: said, same: /\bsame\b/i.test(said) };
}

/** The capitalised name a text opens with: "Escape from the Dark both animated features" -> "Escape from the Dark". */
function leadingName(text: string): string {
  const words = text.split(/\s+/);
  let end = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (/^\p{Lu}/u.test(word)) end = i + 1;
    else if (!NAME_CONNECTORS.has(word) || !connectsToCapital(words, i)) break;
  }
  return words.slice(0, end).join(" ");
}

/** Whether the connectors from word i on ("from the") lead to a capitalised word. */
function connectsToCapital(words: string[], i: number): boolean {
  let k = i;
  while (NAME_CONNECTORS.has(words[k] ?? "")) k++;
  return /^\p{Lu}/u.test(words[k] ?? "");
}

function withoutArticle(text: string): string {
  return text.trim().replace(/^(?:the|a|an)\s+/i, "");
}

/**
 * The verdict on a yes/no question from the quoted sentences and the passages about each subject
 * (titled by it, or a sentence naming it whole): "Yes" when a sentence about each says the
 * predicate (all its content words), else "No" naming the subject none says it of. For "the same
 * N", "No" when what is said of the two names nothing in common; when it does, no verdict (a
 * shared country does not make a shared province).
 */
export function yesNoVerdict(
  question: YesNoQuestion,
  passages: AnswerPassage[],
  mentionsOf: (sentence: string) => Mention[],
): string | null {
  const about = question.subjects.map((s) => sentencesAbout(s, passages));
  if (about.some((sentences) => sentences.length === 0)) return null;
  if (question.same) {
    const asked = new Set(question.subjects.map(fold));
    const names = about.map((sentences) => namesIn(sentences, asked, mentionsOf));
    const [a, b] = names;
    if (a && b && [...a].some((name) => b.has(name))) return null;
    return `No, as far as the passages say: what they say of ${question.subjects.join(" and of ")} names nothing in common.`;
  }
  const said = contentWords(question.predicate).map((w) => w.forms);
  const lacking = question.subjects.filter(
    (_, i) => !(about[i] ?? []).some((s) => said.every((forms) => forms.some((f) => s.terms.has(f)))),
  );
  if (lacking.length === 0) return `Yes: the passages say "${question.predicate}" of each.`;
  return `No, as far as the passages say: none says "${question.predicate}" of ${lacking.join(" or ")}.`;
}

function sentencesAbout(subject: string, passages: AnswerPassage[]): AnswerSentence[] {
  const name = fold(subject);
  const terms = contentTerms(subject);
  return passages.flatMap((p) => {
    if (p.subject && fold(p.subject) === name) return p.sentences;
    return p.sentences.filter((s) => terms.every((t) => s.terms.has(t)));
  });
}

/** The names the sentences hold, other than the question's subjects, folded. */
function namesIn(
  sentences: AnswerSentence[],
  asked: ReadonlySet<string>,
  mentionsOf: (sentence: string) => Mention[],
): Set<string> {
  const names = new Set<string>();
  for (const s of sentences)
    for (const m of mentionsOf(s.text)) if (m.named && !asked.has(fold(m.name))) names.add(fold(m.name));
  return names;
}

function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}
