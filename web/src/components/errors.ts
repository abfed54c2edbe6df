import { ApiError } from "../api";

/** A one-line message for a failed request, with the API's error code when it gave one. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
