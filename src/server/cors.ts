/**
 * The Access-Control-Allow-Origin value @fastify/cors gives a request from `origin` with this
 * allow-list (`*` in it allows any origin), for the replies its hook never sees: the ones Fastify
 * answers before any hook runs (a URL with a broken percent-escape).
 */
export function allowedOrigin(origin: string | undefined, allowList: readonly string[]): string | undefined {
  if (allowList.includes("*")) return "*";
  return origin !== undefined && allowList.includes(origin) ? origin : undefined;
}

/**
 * @fastify/cors's options for the allow-list. Its preflight allows GET, HEAD and POST only by
 * default, so a page of an allowed origin could not delete a document, an entity or a
 * relationship, nor edit a document's metadata; and a page reads only the headers it is told it may (the query cache's).
 */
export function corsOptions(allowList: readonly string[]): {
  origin: string[];
  methods: string[];
  exposedHeaders: string[];
} {
  return {
    origin: [...allowList],
    methods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
    exposedHeaders: ["x-kgrag-cache"],
  };
}
