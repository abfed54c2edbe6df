import type { z } from "zod";

/**
 * zod's error for a field that is absent or of the wrong type: `missing "name"` / `"name" must be
 * {what}`, or without a name (when the caller prefixes the field path itself) `is required` /
 * `must be {what}`.
 */
export function mustBe(what: string, name?: string): { error: (issue: { input?: unknown }) => string } {
  return {
    error: (issue) => {
      if (issue.input === undefined) return name ? `missing "${name}"` : "is required";
      return name ? `"${name}" must be ${what}` : `must be ${what}`;
    },
  };
}

/** Every issue on one line, each after its field's path: "description: must not be empty; topK: ...". */
export function issuesLine(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}
