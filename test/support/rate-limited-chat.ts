import { type ChatHandler, lastUserMessage, type ScriptedReply } from "./scripted-openai-server.js";

export interface RateLimitLog {
  /** When each accepted call arrived (ms, server clock). */
  accepted: number[];
  /** Each refused call: when it arrived, the Retry-After it was given (ms) and its last user message. */
  refused: Array<{ at: number; retryAfterMs: number; message: string }>;
  /** Every arrival of each last user message, so a caller's retries can be told apart. */
  arrivals: Map<string, number[]>;
}

/**
 * A chat handler that enforces `limit` requests in any sliding `windowMs` as a strict server
 * would: a call over the limit gets 429 with Retry-After (whole seconds, rounded up) naming when
 * the oldest call in the window leaves it. Accepted calls answer `reply`.
 */
export function rateLimitedChat(
  limit: number,
  windowMs: number,
  reply: ScriptedReply = { content: "ok" },
): { handler: ChatHandler; log: RateLimitLog } {
  const log: RateLimitLog = { accepted: [], refused: [], arrivals: new Map() };
  const handler: ChatHandler = (call) => {
    const now = Date.now();
    const message = lastUserMessage(call);
    log.arrivals.set(message, [...(log.arrivals.get(message) ?? []), now]);
    const inWindow = log.accepted.filter((t) => t > now - windowMs);
    if (inWindow.length < limit) {
      log.accepted.push(now);
      return reply;
    }
    const freeAt = (inWindow[inWindow.length - limit] ?? now) + windowMs;
    const seconds = Math.max(1, Math.ceil((freeAt - now) / 1000));
    log.refused.push({ at: now, retryAfterMs: seconds * 1000, message });
    return {
      status: 429,
      headers: { "retry-after": String(seconds), "x-ratelimit-remaining-requests": "0" },
      body: { error: { message: "Rate limit reached for requests", type: "requests" } },
    };
  };
  return { handler, log };
}
