import type { z } from "zod";
import { OptionsError } from "../options-error.js";
import { type NamesOf, unknownNamesMessage } from "./closest-name.js";
import { issuesLine } from "./zod-messages.js";

/**
 * The options of a library call, checked against their strict schema: zod would drop a misspelt
 * name (`prnue`), and the call would go on without it. Throws an OptionsError (or the error
 * `failure` makes) naming each unknown name and the one meant, or each invalid value.
 */
export function parseOptions<S extends z.ZodObject>(
  schema: S,
  input: unknown,
  of: NamesOf,
  failure: (message: string) => Error = (message) => new OptionsError(message),
): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw failure(describeOptionErrors(parsed.error, Object.keys(schema.shape), of));
}

/**
 * Unknown names first (the likelier slip, with what was meant); otherwise every invalid value, on
 * one line (the CLI's errors are one line: `kgrag entities edit X --description ""`).
 */
export function describeOptionErrors(error: z.ZodError, known: readonly string[], of: NamesOf): string {
  const unknown = error.issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys : []));
  if (unknown.length > 0) return unknownNamesMessage(unknown, known, of);
  return `Invalid ${of.what} ${of.noun ?? "option"}s: ${issuesLine(error)}.`;
}
