/**
 * A one-line message for a failed request: the server's words only. Its error code (`not_found`,
 * `name_taken`) is for programs, and stays on the ApiError for those.
 */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
