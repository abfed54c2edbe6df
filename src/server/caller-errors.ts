import { ConfigError } from "../config-error.js";
import { InvalidSourceDocumentError } from "../ingest/source-input.js";
import { OptionsError } from "../options-error.js";
import { ScopeError } from "../query/graph/scope.js";

/**
 * Library errors that mean the caller asked for something wrong, not that the server failed (a
 * 400). Its own module, so the query processes can tell them apart without loading the server.
 */
export function isCallerError(error: unknown): boolean {
  if (error instanceof ScopeError || error instanceof InvalidSourceDocumentError) return true;
  return error instanceof ConfigError || error instanceof OptionsError;
}
