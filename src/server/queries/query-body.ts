import { z } from "zod";
import { OPTION_SYNONYMS, QueryOptionsSchema } from "../../query/options.js";
import { closestName } from "../../util/closest-name.js";

/** The library's callbacks: the server's own, never a field of a request body. */
const SERVER_CALLBACKS = { onToken: true, onContext: true, signal: true } as const;

/** Every option of the library's query, as JSON (the callbacks are the server's own). */
export const QueryBodySchema = QueryOptionsSchema.omit(SERVER_CALLBACKS).extend({
  question: z.string().trim().min(1, "question must not be empty"),
  /** A time limit below the server's queryTimeoutMs for this query (a larger one is capped to it). */
  timeoutMs: z.number().int().min(1).optional(),
});
export type QueryBody = z.infer<typeof QueryBodySchema>;

/** Names callers reach for in a body: the library's, and the body's own fields under other names. */
const BODY_SYNONYMS: Readonly<Record<string, string>> = {
  ...OPTION_SYNONYMS,
  query: "question",
  q: "question",
  prompt: "question",
  timeout: "timeoutMs",
};

/** What a callback's name in a body is told instead: how the HTTP API does what it does. */
const CALLBACK_NOTES: Readonly<Record<keyof typeof SERVER_CALLBACKS, string>> = {
  onToken: "to stream, POST /api/v1/query/stream",
  onContext: "the context comes first in POST /api/v1/query/stream",
  signal: "a query stops when its request closes or after timeoutMs",
};

/**
 * A note on an unknown body field: the body field it most likely meant (`timeoutms`, `query`), or
 * how the API does what a library callback does (`stream`, `signal`); undefined when nothing fits.
 */
export function queryBodyFieldNote(name: string): string | undefined {
  const meant = closestName(name, Object.keys(QueryBodySchema.shape), BODY_SYNONYMS);
  if (meant) return `did you mean "${meant}"?`;
  const callback = closestName(name, Object.keys(SERVER_CALLBACKS), BODY_SYNONYMS);
  return callback ? CALLBACK_NOTES[callback as keyof typeof SERVER_CALLBACKS] : undefined;
}
