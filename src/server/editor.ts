import type { FastifyRequest } from "fastify";
import type { ApiKey } from "./server-config.js";

/** Who makes an edit over HTTP, for the history: the name given, else the API key's number, else "api". */
export function editorOf(
  request: FastifyRequest,
  apiKeys: readonly ApiKey[],
  given: string | undefined,
): string {
  if (given) return given;
  const index = request.apiKey ? apiKeys.indexOf(request.apiKey) : -1;
  return index >= 0 ? `api key ${index + 1}` : "api";
}
