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
