import {
  EVAL_QUESTION_FORMAT,
  type EvalQuestion,
  EvalQuestionsError,
  parseEvalQuestions,
  unmatchedGoldTitles,
} from "../../query/eval/questions.js";
import { type EvalReport, runEval } from "../../query/eval/run-eval.js";
import { MAX_TOP_K } from "../../query/option-limits.js";
import { QUERY_MODES, type QueryMode } from "../../query/options.js";
import type { KgragServices } from "../../services.js";
import type { EvalFlags, OpenEvalWorkspace } from "../commands/eval.js";
import { checkInputPath, readInputFile } from "../input-file.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

const CORPUS_FORMAT = 'one {"id", "title", "text"} JSON object per line';

/** `kgrag eval`: checks every input, indexes --corpus if given, then scores each mode. */
export async function evalAction(open: OpenEvalWorkspace, flags: EvalFlags): Promise<void> {
  const modes = parseModes(flags.modes);
  const ks = parseKs(flags.k);
  // Every input is checked before the workspace is opened (or created): bad input touches nothing.
  const questions = await readQuestions(flags.questions);
  if (flags.corpus) checkInputPath(flags.corpus, "--corpus", CORPUS_FORMAT);
  const workspace = await open({ ...flags, create: flags.corpus !== undefined });
  try {
    // Indexing skips documents already indexed with the same content.
    if (flags.corpus) await workspace.index([flags.corpus]);
    await checkDocuments(workspace.services, questions, flags);
    const report = await runEval(workspace.services, questions, {
      modes,
      ks,
      graphRanking: flags.graphRanking,
      onQuestion: (mode, done, total) => {
        if (process.stderr.isTTY)
          process.stderr.write(`\r${mode}: ${done}/${total}${done === total ? "\n" : ""}`);
      },
    });
    if (flags.json) printJson(report);
    else process.stdout.write(reportTable(report));
  } finally {
    await workspace.close();
  }
}

async function readQuestions(file: string): Promise<EvalQuestion[]> {
  const text = await readInputFile(file, "--questions", EVAL_QUESTION_FORMAT);
  try {
    return parseEvalQuestions(text, `--questions file ${file}`);
  } catch (error) {
    if (error instanceof EvalQuestionsError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Scoring an empty workspace would print a table of zeros; gold titles no document has can only
 * score 0, which is worth one warning (usually a corpus and questions that do not belong together).
 */
async function checkDocuments(services: KgragServices, questions: EvalQuestion[], flags: EvalFlags) {
  const titles = (await services.store.listDocuments()).map((d) => d.title);
  if (titles.length === 0) {
    const where = flags.corpus ? `after indexing ${flags.corpus}` : `in ${services.config.workspace}`;
    throw new UsageError(
      `No documents to score against ${where}. Give --corpus FILE (${CORPUS_FORMAT}) or run kgrag index first.`,
    );
  }
  const unmatched = unmatchedGoldTitles(questions, titles);
  if (unmatched.length === 0) return;
  const shown = unmatched.slice(0, 5).map((t) => JSON.stringify(t));
  const more = unmatched.length > shown.length ? ` and ${unmatched.length - shown.length} more` : "";
  process.stderr.write(
    `kgrag: warning: ${unmatched.length} gold title(s) match no document title and can only score 0: ` +
      `${shown.join(", ")}${more}\n`,
  );
}

export function reportTable(report: EvalReport): string {
  const entries = Object.entries(report.modes);
  const withContains = entries.some(([, s]) => s.answerContains !== undefined);
  const withAnswers = entries.some(([, s]) => s.exactMatch !== undefined);
  const headers = [
    "mode",
    ...report.ks.map((k) => `all-gold@${k}`),
    ...report.ks.map((k) => `recall@${k}`),
    "MRR",
    ...(withContains ? ["answer contains"] : []),
    ...(withAnswers ? ["EM", "F1"] : []),
  ];
  const fixed = (x: number | undefined) => (x === undefined ? "" : x.toFixed(2));
  const rows = entries.map(([mode, s]) => [
    mode,
    ...report.ks.map((k) => fixed(s.allGold[k])),
    ...report.ks.map((k) => fixed(s.recall[k])),
    fixed(s.mrr),
    ...(withContains ? [fixed(s.answerContains)] : []),
    ...(withAnswers ? [fixed(s.exactMatch), fixed(s.f1)] : []),
  ]);
  const questions = entries[0]?.[1].questions ?? 0;
  return `${formatTable(headers, rows)}\n(${questions} questions)\n`;
}

function parseModes(modes: string[] | undefined): QueryMode[] {
  if (!modes?.length) return [...QUERY_MODES];
  const list = modes.flatMap((m) => m.split(",")).map((m) => m.trim());
  const unknown = list.filter((m) => !(QUERY_MODES as readonly string[]).includes(m));
  if (unknown.length)
    throw new UsageError(`Unknown mode(s) ${unknown.join(", ")}; choose from ${QUERY_MODES.join(", ")}`);
  return list as QueryMode[];
}

/** Each K is a passage depth the query retrieves (its chunkTopK), so it keeps that option's bound. */
function parseKs(list: string): number[] {
  const ks = list.split(",").map((k) => Number(k.trim()));
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > MAX_TOP_K)) {
    throw new UsageError(
      `--k expects whole numbers from 1 to ${MAX_TOP_K.toLocaleString("en-US")} separated by commas, e.g. 5,8,10; got "${list}"`,
    );
  }
  return ks;
}
