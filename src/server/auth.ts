import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "./errors.js";
import type { ApiKey } from "./server-config.js";

/** Paths that need a key when keys are set: the API, its description, the Ollama- and OpenAI-compatible routes. */
export function isProtectedPath(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return (
    path.startsWith("/api/") ||
    path.startsWith("/v1/") ||
    path === "/openapi.json" ||
    path === "/docs" ||
    path.startsWith("/docs/")
  );
}

/** The key a request carries: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  if (typeof header === "string" && header) return header;
  const auth = request.headers.authorization;
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return match?.[1]?.trim();
}

function sameKey(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function findKey(keys: ApiKey[], presented: string | undefined): ApiKey | undefined {
  return presented === undefined ? undefined : keys.find((k) => sameKey(k.key, presented));
}

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's key, when the server has keys. */
    apiKey?: ApiKey;
  }
}

/** onRequest hook: with keys configured, every protected path needs one of them. */
export function requireApiKey(keys: ApiKey[]) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (keys.length === 0 || !isProtectedPath(request.url)) return;
    const presented = presentedKey(request);
    const key = findKey(keys, presented);
    if (!key) {
      throw new ApiError(
        401,
        "unauthorized",
        presented === undefined
          ? "An API key is required: send `Authorization: Bearer <key>` or `X-API-Key: <key>`"
          : "The API key is not valid",
      );
    }
    request.apiKey = key;
  };
}
