/**
 * The Access-Control-Allow-Origin value @fastify/cors gives a request from `origin` with this
 * allow-list (`*` in it allows any origin), for the replies its hook never sees: the ones Fastify
 * answers before any hook runs (a URL with a broken percent-escape).
 */
export function allowedOrigin(origin: string | undefined, allowList: readonly string[]): string | undefined {
  if (allowList.includes("*")) return "*";
  return origin !== undefined && allowList.includes(origin) ? origin : undefined;
}
