import { readFile } from "node:fs/promises";
import { z } from "zod";
import { parseJsonLine } from "../../util/jsonl-line.js";
import { mustBe } from "../../util/zod-messages.js";
import { normalizeTitle } from "./metrics.js";

/** The line format, quoted in every error about a questions file. */
export const EVAL_QUESTION_FORMAT =
  'one JSON object per line: {"id", "question", "gold_titles": ["<document title>", ...], "answer"?, "aliases"?, "type"?}';

/** One line of a questions file in the ../shared/datasets format. */
const EvalQuestionSchema = z.object(
  {
    id: z.union([z.string(), z.number()], mustBe("a string or a number", "id")).transform(String),
    question: z.string(mustBe("text", "question")).trim().min(1, '"question" is empty'),
    answer: z.string(mustBe("text", "answer")).optional(),
    aliases: z.array(z.string(), mustBe("a list of texts", "aliases")).default([]),
    gold_titles: z
      .array(z.string(), mustBe("a list of document titles", "gold_titles"))
      .min(1, '"gold_titles" is empty: name the document(s) that answer the question'),
    type: z.string(mustBe("text", "type")).optional(),
  },
  { error: "not a JSON object" },
);
export type EvalQuestion = z.infer<typeof EvalQuestionSchema>;

/** A questions file that cannot be read as questions: bad input, reported with its line. */
export class EvalQuestionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvalQuestionsError";
  }
}

export async function readEvalQuestions(path: string): Promise<EvalQuestion[]> {
  return parseEvalQuestions(await readFile(path, "utf8"), path);
}

/** Every non-blank line must be a question; the first that is not stops the run, naming its line. */
export function parseEvalQuestions(text: string, source: string): EvalQuestion[] {
  const questions = text.split(/\r?\n/).flatMap((line, i) => (line.trim() ? [parseLine(line, i + 1)] : []));
  if (questions.length === 0)
    throw new EvalQuestionsError(`${source} has no questions; ${EVAL_QUESTION_FORMAT}`);
  return questions;

  function parseLine(line: string, n: number): EvalQuestion {
    const parsed = parseJsonLine(line, n, EvalQuestionSchema, EVAL_QUESTION_FORMAT);
    if (parsed.ok) return parsed.value;
    throw new EvalQuestionsError(`${source}, line ${n}: ${parsed.problem}; ${EVAL_QUESTION_FORMAT}`);
  }
}

/** Gold titles no document has (compared as scoring compares them): those questions can only score 0. */
export function unmatchedGoldTitles(questions: EvalQuestion[], documentTitles: string[]): string[] {
  const known = new Set(documentTitles.map(normalizeTitle));
  const gold = new Set(questions.flatMap((q) => q.gold_titles));
  return [...gold].filter((title) => !known.has(normalizeTitle(title)));
}
