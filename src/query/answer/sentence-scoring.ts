import type { ExtractiveAnswerConfig } from "../../config.js";
import type { Mention } from "../../nlp/types.js";
import { answerKindsIn } from "./answer-evidence.js";
import { bridgeTerms, passagesNamedBy } from "./bridge.js";
import { verbsDoneToNames } from "./done-to-names.js";
import type { AnswerPassage, AnswerSentence } from "./passages.js";
import { type QuestionType, questionClauses, questionOptions, questionType } from "./question-type.js";
import { agentNounVerb, contentTerms, contentWords } from "./terms.js";

export interface ScoredSentence {
  sentence: AnswerSentence;
  n: number;
  score: number;
}

interface Candidate {
  sentence: AnswerSentence;
  n: number;
  passage: AnswerPassage;
  /** Question term -> what it adds: its inverse document frequency times how it was met. */
  gains: Map<string, number>;
  /** How sure it holds the kind of answer asked for, 0 to 1; computed on first use (the tagger is the cost). */
  kind: () => number;
  /** The most its kind multiplier (1 + kindBoost x kind) can be. */
  maxBoost: number;
}

/**
 * The sentences that best answer the question, best first, chosen one at a time:
 *  - each question term a sentence holds counts its inverse document frequency over the context's
 *    sentences (rare names weigh more than "film"); a term reached through an opening pronoun
 *    ("It was founded..." in the passage titled Corvane Shipping) counts as held;
 *  - a term found only in the passages that lead to this one (the bridge of a two-hop question)
 *    counts at `bridgeWeight`;
 *  - a sentence holding the kind of answer the question asks for (a person for "who", a place for
 *    "where", a year for "when", a number for "how many"), other than what the question names,
 *    is multiplied by 1 + `kindBoost` (by half that when the kind is only guessed, see
 *    answerKindsIn). Multiplying, not adding, keeps the boost for sentences
 *    connected to the question: a name in an unrelated sentence earns nothing;
 *  - a term an earlier pick already holds counts at `repeatWeight`, so a question of two parts
 *    ("which company makes it, and where was its founder born?") is answered in both;
 *  - a sentence in a passage whose subject an earlier pick names (the second hop: "He played for
 *    the Philadelphia Eagles" leads to "The Philadelphia Eagles are ... based in Philadelphia,
 *    Pennsylvania") also counts the pick's question terms it lacks, at `bridgeWeight`: the two
 *    sentences answer the question together. When the question asks for a kind, only a sentence
 *    holding it takes the hop; "What position did ... play?" asks none, and any sentence may.
 */
export function scoreSentences(
  question: string,
  type: QuestionType,
  passages: AnswerPassage[],
  config: ExtractiveAnswerConfig,
  mentionsOf: (sentence: string) => Mention[],
): ScoredSentence[] {
  const picked: ScoredSentence[] = [];
  for (const part of questionParts(question, type).slice(0, config.sentences)) {
    const candidates = candidatesFor(question, part.type, passages, config, mentionsOf);
    // The sentence answering a part must hold some word of that part, not only the others'; an
    // option's sentence must name it, not only refer to it ("He is also remembered..."): the
    // reader tells the options apart by their names.
    const holds = (c: Candidate, t: string) => (part.named ? c.sentence.terms.has(t) : c.gains.has(t));
    const relevant = candidates.filter((c) => [...part.own].some((t) => holds(c, t)));
    pick(picked, relevant, { covered: part.others, hops: new Map(), hopNeedsKind: true, config });
  }
  const candidates = candidatesFor(question, type, passages, config, mentionsOf);
  while (picked.length < config.sentences) {
    const covered = new Set(picked.flatMap((p) => [...(gainsOf(candidates, p.sentence)?.keys() ?? [])]));
    const hops = hopGains(question, picked, candidates, passages, config);
    if (!pick(picked, candidates, { covered, hops, hopNeedsKind: type.kinds.length > 0, config })) break;
  }
  return picked;
}

interface QuestionPart {
  type: QuestionType;
  /** The part's own terms, and the other parts' terms (which say what "it" in "who founded it?" is). */
  own: Set<string>;
  others: Set<string>;
  /** The part is an option of a choice question: its sentence must name it. */
  named: boolean;
}

/**
 * The parts of a question, each answered by its own sentence: the options of a choice question
 * ("Who was born first, Giotto or Frederick Law Olmsted?": one sentence on each, whatever kind
 * "who" asks, since the answer is one of them), or the clauses of a question of several parts,
 * each asking its own kind; none for a simple question.
 */
function questionParts(question: string, type: QuestionType): QuestionPart[] {
  const options = questionOptions(question);
  if (options.length >= 2)
    return options.map((option) => questionPart(question, option, { ...type, kinds: [] }, true));
  const clauses = questionClauses(question);
  if (clauses.length < 2) return [];
  return clauses.map((clause) =>
    questionPart(question, clause, { ...type, kinds: questionType(clause).kinds }, false),
  );
}

function questionPart(question: string, part: string, type: QuestionType, named: boolean): QuestionPart {
  const own = new Set(contentWords(part).map((w) => w.term));
  const others = contentWords(question)
    .map((w) => w.term)
    .filter((t) => !own.has(t));
  return { type, own, others: new Set(others), named };
}

/** What a pick weighs beyond a candidate's own terms. */
interface PickState {
  /** Terms earlier picks hold: they count at `repeatWeight`. */
  covered: ReadonlySet<string>;
  /** Second-hop candidates and what they carry over from the pick that leads to them (see hopGains). */
  hops: ReadonlyMap<Candidate, number>;
  /** Whether a hop counts only for a sentence holding the kind asked for (when the question asks one). */
  hopNeedsKind: boolean;
  config: ExtractiveAnswerConfig;
}

/** Adds the best candidate not picked yet; false if none. */
function pick(picked: ScoredSentence[], candidates: Candidate[], state: PickState): boolean {
  const chosen = new Set(picked.map((p) => p.sentence));
  const fresh = candidates.filter((c) => !chosen.has(c.sentence));
  const best = bestCandidate(fresh, state);
  if (best) picked.push({ sentence: best.candidate.sentence, n: best.candidate.n, score: best.score });
  return best !== undefined;
}

function gainsOf(candidates: Candidate[], sentence: AnswerSentence): Map<string, number> | undefined {
  return candidates.find((c) => c.sentence === sentence)?.gains;
}

function candidatesFor(
  question: string,
  type: QuestionType,
  passages: AnswerPassage[],
  config: ExtractiveAnswerConfig,
  mentionsOf: (sentence: string) => Mention[],
): Candidate[] {
  const wanted = questionTerms(question);
  const asked = new Set(wanted.keys());
  const idf = inverseDocumentFrequency(
    passages.flatMap((p) => p.sentences),
    wanted,
  );
  const names = questionNames(question, passages, mentionsOf);
  const nameTerms = new Set(names.flatMap((name) => contentTerms(name)));
  const doneToNames = verbsDoneToNames(question, names);
  const bridges = bridgeTerms(passages, nameTerms);
  const candidates: Candidate[] = [];
  passages.forEach((passage, i) => {
    const bridge = bridges[i] ?? new Set<string>();
    for (const sentence of passage.sentences) {
      if (saysAskedVerbOfAnother(sentence, nameTerms, doneToNames)) continue;
      const gains = new Map<string, number>();
      for (const [term, forms] of wanted) {
        const gain = termWeight(forms, sentence, bridge, config.bridgeWeight) * (idf.get(term) ?? 0);
        if (gain > 0) gains.set(term, gain);
      }
      if (gains.size === 0) continue;
      const kind = once(() => askedKindStrength(sentence.text, type, asked, mentionsOf));
      candidates.push({ sentence, n: passage.n, passage, gains, kind, maxBoost: 1 + config.kindBoost });
    }
  });
  return candidates;
}

/**
 * The best-scoring candidate. Candidates are tried by lexical score (with any second-hop gain), and
 * the search stops once even the largest boost could not lift one over the best found: most
 * sentences are never tagged. When the question asks for a kind, a second-hop gain counts only
 * for a sentence holding it: the hop is taken to reach the answer.
 */
function bestCandidate(
  candidates: Candidate[],
  state: PickState,
): { candidate: Candidate; score: number } | undefined {
  const { covered, hops, hopNeedsKind, config } = state;
  const ranked = candidates
    .map((candidate) => {
      const lexical = lexicalScore(candidate, covered, config.repeatWeight);
      return { candidate, lexical, hop: hops.get(candidate) ?? 0 };
    })
    .sort((a, b) => b.lexical + b.hop - (a.lexical + a.hop));
  let best: { candidate: Candidate; score: number } | undefined;
  for (const { candidate, lexical, hop } of ranked) {
    if (best && (lexical + hop) * candidate.maxBoost < best.score) break;
    const kind = candidate.kind();
    const score = (lexical + (kind > 0 || !hopNeedsKind ? hop : 0)) * (1 + config.kindBoost * kind);
    const better =
      !best ||
      score > best.score ||
      (score === best.score && candidate.sentence.order < best.candidate.sentence.order);
    if (score > 0 && better) best = { candidate, score };
  }
  return best;
}

function lexicalScore(candidate: Candidate, covered: ReadonlySet<string>, repeatWeight: number): number {
  let lexical = 0;
  for (const [term, gain] of candidate.gains) lexical += covered.has(term) ? gain * repeatWeight : gain;
  return lexical;
}

/**
 * The second-hop candidates: sentences of the passages an earlier pick names (see passagesNamedBy),
 * each with the question terms that pick holds and it lacks, at `bridgeWeight` (the best pick
 * leading to it counts).
 */
function hopGains(
  question: string,
  picked: ScoredSentence[],
  candidates: Candidate[],
  passages: AnswerPassage[],
  config: ExtractiveAnswerConfig,
): Map<Candidate, number> {
  const hops = new Map<Candidate, number>();
  for (const { sentence } of picked) {
    const from = candidates.find((c) => c.sentence === sentence);
    if (!from) continue;
    const linked = new Set(passagesNamedBy(sentence.text, from.passage, passages, question));
    for (const candidate of candidates) {
      if (!linked.has(candidate.passage)) continue;
      let carried = 0;
      for (const [term, gain] of from.gains)
        if (!candidate.gains.has(term)) carried += gain * config.bridgeWeight;
      hops.set(candidate, Math.max(hops.get(candidate) ?? 0, carried));
    }
  }
  return hops;
}

function once(compute: () => number): () => number {
  let value: number | undefined;
  return () => {
    value ??= compute();
    return value;
  };
}

/**
 * The names the question holds: the entity a two-hop question starts from. A passage title the
 * question contains is a name too, whatever the tagger made of it (青石科技).
 */
function questionNames(
  question: string,
  passages: AnswerPassage[],
  mentionsOf: (sentence: string) => Mention[],
): string[] {
  const folded = question.normalize("NFKC").toLowerCase();
  const titles = passages.flatMap((p) =>
    p.subject && folded.includes(p.subject.normalize("NFKC").toLowerCase()) ? [p.subject] : [],
  );
  const named = mentionsOf(question)
    .filter((m) => m.named)
    .map((m) => m.name);
  return [...new Set([...named, ...titles])];
}

/**
 * The sentence opens with a reference to another subject than the question's names and says, in
 * the passive, what the question asks about as done to one of them: "It was founded in 2016 by
 * Idris Vale, a former engineer at Lumora Optics" (in the passage on Tidewell Robotics) tells who
 * founded Tidewell, not Lumora Optics, whatever names it holds in passing. An active sentence
 * ("She founded Lumora Optics" on Mara Quell) says what its subject did, and is kept; so is one
 * about the unnamed thing of a two-hop question ("Who directed the film shot in Leland?").
 */
function saysAskedVerbOfAnother(
  sentence: AnswerSentence,
  nameTerms: ReadonlySet<string>,
  doneToNames: ReadonlySet<string>,
): boolean {
  if (sentence.passiveTerms.size === 0 || doneToNames.size === 0) return false;
  if ([...sentence.subjectTerms].some((t) => nameTerms.has(t))) return false;
  return [...sentence.passiveTerms].some((t) => doneToNames.has(t));
}

/** Each question term with the forms that count for it: "founder" is also met by "found(ed)". */
function questionTerms(question: string): Map<string, string[]> {
  const words = contentWords(question);
  const terms = new Map<string, string[]>();
  for (const { term, forms } of words) {
    // Search mode also yields a Chinese word's parts (青石科技: 青石, 科技): one name counts once.
    if (words.some((w) => w.term !== term && w.term.includes(term) && HAN.test(term))) continue;
    const verb = agentNounVerb(term);
    terms.set(term, verb ? [...forms, verb] : forms);
  }
  return terms;
}

const HAN = /\p{Script=Han}/u;

function termWeight(forms: string[], sentence: AnswerSentence, bridge: Set<string>, bridgeWeight: number) {
  if (forms.some((f) => sentence.terms.has(f) || sentence.subjectTerms.has(f))) return 1;
  return forms.some((f) => bridge.has(f)) ? bridgeWeight : 0;
}

/** How sure the sentence holds a kind of answer the question asks for: 0 (not at all) to 1. */
function askedKindStrength(
  text: string,
  type: QuestionType,
  asked: ReadonlySet<string>,
  mentionsOf: (sentence: string) => Mention[],
): number {
  if (type.kinds.length === 0) return 0;
  const found = answerKindsIn(text, mentionsOf(text), asked);
  return Math.max(0, ...type.kinds.map((kind) => found.get(kind) ?? 0));
}

/**
 * log(1 + N / df) over the context's sentences; a term no sentence holds (met only through a
 * title or a bridge) counts as held by one, the rarest a term can be.
 */
function inverseDocumentFrequency(
  sentences: AnswerSentence[],
  terms: Map<string, string[]>,
): Map<string, number> {
  const idf = new Map<string, number>();
  const total = sentences.length;
  for (const [term, forms] of terms) {
    const df = sentences.filter((s) => forms.some((f) => s.terms.has(f) || s.subjectTerms.has(f))).length;
    idf.set(term, Math.log(1 + total / Math.max(df, 1)));
  }
  return idf;
}
