import type { KgragServices } from "../../services.js";
import { answerStatements } from "../answer/answer.js";
import { type GraphRanking, QUERY_MODES, type QueryMode } from "../options.js";
import { runQuery } from "../query-engine.js";
import { DEFAULT_KS } from "./cut-offs.js";
import {
  answerContains,
  exactMatch,
  mean,
  type RetrievalScores,
  scoreRetrieval,
  tokenF1,
} from "./metrics.js";
import type { EvalQuestion } from "./questions.js";

// Kept here too: the benchmarks read questions and run the eval from this one module.
export { type EvalQuestion, readEvalQuestions } from "./questions.js";
export { DEFAULT_KS };

/** Asked for when answers are scored by exact match: a short answer, the form HotpotQA grades. */
const SHORT_ANSWER =
  "only the answer itself in a few words (a name, number, date, yes or no), no explanation";

export interface EvalOptions {
  modes?: QueryMode[];
  ks?: number[];
  graphRanking?: GraphRanking;
  /**
   * Score answers too; default: when some question has a gold answer (offline, the extractive
   * answer is scored by answerContains only: EM and F1 need a model's short answer).
   */
  answers?: boolean;
  onQuestion?: (mode: QueryMode, done: number, total: number) => void;
}

export interface ModeScores {
  questions: number;
  allGold: Record<number, number>;
  recall: Record<number, number>;
  mrr: number;
  /** Share of answers that hold the gold answer or an alias (see answerContains). */
  answerContains?: number;
  exactMatch?: number;
  f1?: number;
  meanRetrievalMs: number;
}

export interface EvalReport {
  ks: number[];
  modes: Partial<Record<QueryMode, ModeScores & { byType: Record<string, ModeScores> }>>;
}

interface QuestionOutcome {
  type: string;
  retrieval: RetrievalScores;
  answerContains?: number;
  exactMatch?: number;
  f1?: number;
  retrievalMs: number;
}

/**
 * Scores retrieval against gold passages for each mode: a question's retrieved passages are the
 * documents behind its ranked context chunks, de-duplicated in order, matched to gold by title.
 */
export async function runEval(
  services: KgragServices,
  questions: EvalQuestion[],
  options: EvalOptions = {},
): Promise<EvalReport> {
  const ks = options.ks ?? DEFAULT_KS;
  const scoreAnswers = options.answers ?? questions.some((q) => q.answer !== undefined);
  const report: EvalReport = { ks, modes: {} };
  for (const mode of options.modes ?? [...QUERY_MODES]) {
    const outcomes: QuestionOutcome[] = [];
    for (const q of questions) {
      outcomes.push(await evaluateQuestion(services, q, mode, ks, scoreAnswers, options.graphRanking));
      options.onQuestion?.(mode, outcomes.length, questions.length);
    }
    report.modes[mode] = { ...summarize(outcomes, ks), byType: byType(outcomes, ks) };
  }
  return report;
}

async function evaluateQuestion(
  services: KgragServices,
  q: EvalQuestion,
  mode: QueryMode,
  ks: number[],
  scoreAnswers: boolean,
  graphRanking: GraphRanking | undefined,
): Promise<QuestionOutcome> {
  const result = await runQuery(services, q.question, {
    mode,
    contextOnly: !scoreAnswers,
    responseType: SHORT_ANSWER,
    chunkTopK: Math.max(...ks, services.config.query.chunkTopK),
    graphRanking,
  });
  const titles = [...new Set(result.references.map((r) => r.title))];
  const outcome: QuestionOutcome = {
    type: q.type ?? "all",
    retrieval: scoreRetrieval(titles, q.gold_titles, ks),
    retrievalMs: result.timings.retrievalMs,
  };
  if (scoreAnswers && q.answer !== undefined) {
    const answer = answerStatements(result.answer).replace(/\[\d+\]/g, "");
    const accepted = [q.answer, ...q.aliases];
    outcome.answerContains = answerContains(answer, accepted);
    // A short answer is what EM and F1 grade; an extractive answer quotes whole sentences.
    if (services.chat) {
      outcome.exactMatch = exactMatch(answer, accepted);
      outcome.f1 = tokenF1(answer, accepted);
    }
  }
  return outcome;
}

function summarize(outcomes: QuestionOutcome[], ks: number[]): ModeScores {
  const at = (pick: (o: QuestionOutcome) => Record<number, number>) =>
    Object.fromEntries(ks.map((k) => [k, mean(outcomes.map((o) => pick(o)[k] ?? 0))]));
  const answered = outcomes.filter((o) => o.answerContains !== undefined);
  const graded = outcomes.filter((o) => o.exactMatch !== undefined);
  return {
    questions: outcomes.length,
    allGold: at((o) => o.retrieval.allGold),
    recall: at((o) => o.retrieval.recall),
    mrr: mean(outcomes.map((o) => o.retrieval.reciprocalRank)),
    ...(answered.length ? { answerContains: mean(answered.map((o) => o.answerContains ?? 0)) } : {}),
    ...(graded.length
      ? { exactMatch: mean(graded.map((o) => o.exactMatch ?? 0)), f1: mean(graded.map((o) => o.f1 ?? 0)) }
      : {}),
    meanRetrievalMs: mean(outcomes.map((o) => o.retrievalMs)),
  };
}

function byType(outcomes: QuestionOutcome[], ks: number[]): Record<string, ModeScores> {
  const groups = new Map<string, QuestionOutcome[]>();
  for (const o of outcomes) groups.set(o.type, [...(groups.get(o.type) ?? []), o]);
  return Object.fromEntries([...groups].map(([type, group]) => [type, summarize(group, ks)]));
}
