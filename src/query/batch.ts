import pLimit from "p-limit";
import { z } from "zod";
import type { KgragServices } from "../services.js";
import { quotedWithGuess } from "../util/closest-name.js";
import { parseJsonLine } from "../util/jsonl-line.js";
import { mustBe } from "../util/zod-messages.js";
import { checkScope } from "./graph/scope.js";
import { OPTION_SYNONYMS, type QueryOptionsInput, QueryOptionsSchema, scopeOfOptions } from "./options.js";
import { runQuery } from "./query-engine.js";
import type { QueryResult } from "./result.js";

export const BATCH_LINE_FORMAT =
  'each line must be a JSON object {"id": ..., "question": "..."}, with any query options ("mode", "topK", ...)';

const QUERY = QueryOptionsSchema.shape;

/**
 * The query options a line may give beside its id and question: those JSON can carry, checked as
 * the query checks them. What a line leaves out comes from the batch's options (the command's
 * flags), so none has a default here: zod would fill it in and override the batch's.
 */
const LineOptionsShape = {
  ...QueryOptionsSchema.omit({ id: true, onToken: true, onContext: true, signal: true }).shape,
  mode: QUERY.mode.unwrap().optional(),
  contextOnly: QUERY.contextOnly.unwrap().optional(),
  history: QUERY.history.unwrap().optional(),
  graphRanking: QUERY.graphRanking.unwrap().optional(),
};

const LINE_KEYS = ["id", "question", ...Object.keys(LineOptionsShape)];

/** Strict, like query options: a misspelt "mdoe" would otherwise run the line in the batch's mode. */
const BatchLineSchema = z.strictObject(
  {
    id: z.union([z.string(), z.number()], mustBe("a string or a number", "id")).transform(String),
    question: z.string(mustBe("text", "question")).trim().min(1, '"question" is empty'),
    ...LineOptionsShape,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? unknownKeysProblem(issue.keys) : "not a JSON object",
  },
);

/** The query options a batch line may hold. */
export type BatchLineOptions = Omit<z.output<typeof BatchLineSchema>, "id" | "question">;

function unknownKeysProblem(keys: readonly string[]): string {
  const named = keys.map((key) => quotedWithGuess(key, LINE_KEYS, OPTION_SYNONYMS));
  return `unknown key${keys.length > 1 ? "s" : ""} ${named.join(", ")}`;
}

/**
 * One question of a batch; `line` is its 1-based line in the batch file, when it came from one.
 * Its `options` win over the batch's for this question.
 */
export interface BatchQuestion {
  id: string;
  question: string;
  line?: number;
  options?: BatchLineOptions;
}

/** A line that could not be read as a question: it is reported in its place, the rest still run. */
export interface BatchLineError {
  id: string | null;
  line: number;
  error: string;
}

export type BatchEntry = BatchQuestion | BatchLineError;

/** A question that failed does not stop the batch either; its output line says why. */
export type BatchOutcome = QueryResult | { id: string; line?: number; error: string } | BatchLineError;

export function isBatchLineError(entry: BatchEntry): entry is BatchLineError {
  return "error" in entry;
}

/** Every non-blank line becomes a question or, when it is not one, a line error saying why. */
export function parseBatchLines(text: string): BatchEntry[] {
  return text.split(/\r?\n/).flatMap((text, i) => (text.trim() ? [parseLine(text, i + 1)] : []));
}

function parseLine(text: string, line: number): BatchEntry {
  const parsed = parseJsonLine(text, line, BatchLineSchema, BATCH_LINE_FORMAT);
  if (parsed.ok) {
    const { id, question, ...options } = parsed.value;
    return { id, question, line, ...(Object.keys(options).length > 0 ? { options } : {}) };
  }
  return { id: parsed.id === null ? null : String(parsed.id), line, error: parsed.error };
}

/**
 * Runs the questions a few at a time (the model's concurrency) and hands the outcomes to `emit`
 * strictly in input order, each as soon as all before it are done; line errors keep their place.
 * A scope naming an unknown document or metadata key fails the whole batch once, up front; a
 * line's own scope (its docIds or metadata) fails that line only.
 */
export async function runBatch(
  services: KgragServices,
  entries: BatchEntry[],
  options: QueryOptionsInput,
  emit: (outcome: BatchOutcome) => void,
): Promise<void> {
  await checkScope(services.store, scopeOfOptions(options));
  const limit = pLimit(services.chat ? (services.config.llm?.concurrency ?? 4) : 1);
  const done = new Map<number, BatchOutcome>();
  let next = 0;
  const flush = () => {
    for (let outcome = done.get(next); outcome; outcome = done.get(next)) {
      done.delete(next);
      emit(outcome);
      next += 1;
    }
  };
  entries.forEach((entry, index) => {
    if (isBatchLineError(entry)) done.set(index, entry);
  });
  flush();
  await Promise.all(
    entries.map((entry, index) =>
      isBatchLineError(entry)
        ? undefined
        : limit(async () => {
            done.set(index, await answerOne(services, entry, options));
            flush();
          }),
    ),
  );
}

async function answerOne(
  services: KgragServices,
  q: BatchQuestion,
  options: QueryOptionsInput,
): Promise<BatchOutcome> {
  try {
    return await runQuery(services, q.question, { ...options, ...q.options, id: q.id, onToken: undefined });
  } catch (error) {
    const line = q.line === undefined ? {} : { line: q.line };
    return { id: q.id, ...line, error: error instanceof Error ? error.message : String(error) };
  }
}
