import type { z } from "zod";

/** A JSONL line that is not a record of the expected shape; `id` is its "id" when one is readable. */
export interface JsonLineError {
  id: string | number | null;
  /** What is wrong, e.g. `not valid JSON` or `missing "question", "id" must be a string or a number`. */
  problem: string;
  /** The message for the user: line number, problem and the expected `format`. */
  error: string;
}

export type JsonLineResult<T> = { ok: true; value: T } | ({ ok: false } & JsonLineError);

/**
 * Parses line `line` (1-based) of a JSONL file against `schema`. Every problem zod finds is listed
 * once, so one look at the error tells how to fix the whole line.
 */
export function parseJsonLine<S extends z.ZodType>(
  text: string,
  line: number,
  schema: S,
  format: string,
): JsonLineResult<z.output<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const problem = "not valid JSON";
    return { ok: false, id: null, problem, error: `line ${line} is not valid JSON; ${format}` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problem = [...new Set(parsed.error.issues.map(describeIssue))].join(", ");
  return { ok: false, id: readableId(json), problem, error: `line ${line}: ${problem}; ${format}` };
}

/** zod's message, led by the field it is about unless the message names it already ("missing \"text\""). */
function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join(".");
  return field && !issue.message.includes(`"${String(issue.path[0])}"`)
    ? `${field}: ${issue.message}`
    : issue.message;
}

function readableId(json: unknown): string | number | null {
  const id = typeof json === "object" && json !== null ? (json as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
