import { subscribe, unsubscribe } from "node:diagnostics_channel";

/** The header gateways use to attribute cost to a pipeline stage. */
export const STAGE_HEADER = "X-Kgrag-Stage";

/** undici's documented channel for a request whose body has been written to its socket. */
const BODY_SENT = "undici:request:bodySent";

/**
 * Resolves once `count` requests of `stage` have been written to their sockets by Node's fetch
 * (which the OpenAI client uses), or as soon as `signal` aborts. A request is built in a few turns
 * of the event loop and written in later ones, so this, not the call, tells that it is on its way.
 * Requests through other transports are never seen: callers race this against a time limit.
 */
export function stageRequestsSent(stage: string, count: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (count <= 0 || signal.aborted) return resolve();
    let sent = 0;
    const done = () => {
      unsubscribe(BODY_SENT, onSent);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const onSent = (message: unknown) => {
      if (stageOf(message) === stage && ++sent >= count) done();
    };
    subscribe(BODY_SENT, onSent);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The stage header of a request undici reports: a flat [name, value, ...] list or raw header lines. */
export function stageOf(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || !("request" in message)) return undefined;
  const { request } = message;
  if (typeof request !== "object" || request === null || !("headers" in request)) return undefined;
  const { headers } = request;
  const name = STAGE_HEADER.toLowerCase();
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    }
    return undefined;
  }
  if (typeof headers !== "string") return undefined;
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}
