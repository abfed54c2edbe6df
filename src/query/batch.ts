import { readFile } from "node:fs/promises";
import pLimit from "p-limit";
import { z } from "zod";
import type { KgragServices } from "../services.js";
import type { QueryOptionsInput } from "./options.js";
import { runQuery } from "./query-engine.js";
import type { QueryResult } from "./result.js";

const BatchLineSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  question: z.string().trim().min(1),
});
export type BatchQuestion = z.infer<typeof BatchLineSchema>;

/** A question that failed does not stop the batch; its line says why. */
export type BatchOutcome = QueryResult | { id: string; error: string };

/** Reads `{"id","question"}` lines; a bad line is an error naming file and line, before any query runs. */
export async function readBatchFile(path: string): Promise<BatchQuestion[]> {
  const lines = (await readFile(path, "utf8")).split(/\r?\n/);
  const questions: BatchQuestion[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${path}:${i + 1}: not valid JSON; each line must be {"id": ..., "question": "..."}`);
    }
    const parsed = BatchLineSchema.safeParse(json);
    if (!parsed.success) {
      throw new Error(
        `${path}:${i + 1}: expected {"id": ..., "question": "..."} (${z.prettifyError(parsed.error)})`,
      );
    }
    questions.push(parsed.data);
  });
  return questions;
}

/**
 * Runs the questions a few at a time (the model's concurrency) and hands the results to `emit`
 * strictly in input order, each as soon as all before it are done.
 */
export async function runBatch(
  services: KgragServices,
  questions: BatchQuestion[],
  options: QueryOptionsInput,
  emit: (outcome: BatchOutcome) => void,
): Promise<void> {
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
  await Promise.all(
    questions.map((q, index) =>
      limit(async () => {
        done.set(index, await answerOne(services, q, options));
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
    return await runQuery(services, q.question, { ...options, id: q.id, onToken: undefined });
  } catch (error) {
    return { id: q.id, error: error instanceof Error ? error.message : String(error) };
  }
}
