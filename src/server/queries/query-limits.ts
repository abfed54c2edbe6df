import type { FastifyReply } from "fastify";
import { untilAborted } from "../../util/until-aborted.js";
import { clientClosedRequest, queryTimedOut } from "../errors.js";

/** What a route tells of one query's caller: whether it went away, and the limit it asked for. */
export interface QueryCall {
  /** Aborts when the client went away (see clientGoneSignal). */
  clientGone?: AbortSignal;
  /** The request's own time limit (ms); the server's queryTimeoutMs caps it. */
  timeoutMs?: number;
}

/** A signal that aborts when the client's connection closes before its reply was sent whole. */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const closed = () => {
    if (!response.writableFinished) controller.abort(clientClosedRequest());
  };
  if (response.destroyed) closed();
  else response.once("close", closed);
  return controller.signal;
}

/** The limit a query runs under: the request's when below the server's (0: the server sets none). */
export function effectiveTimeoutMs(serverMs: number, requestedMs: number | undefined): number {
  if (requestedMs === undefined) return serverMs;
  return serverMs === 0 ? requestedMs : Math.min(serverMs, requestedMs);
}

/**
 * Runs `work` with a signal that aborts when `limitMs` passes (reason: a 504 `query_timeout`) or
 * the client goes away (a 499); the result rejects with that reason at once, while the work stops
 * at its next step (the signal reaches the query and its model calls, or the query process).
 */
export async function withinLimits<T>(
  limitMs: number,
  clientGone: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = limitMs > 0 ? setTimeout(() => controller.abort(queryTimedOut(limitMs)), limitMs) : undefined;
  const leave = () => controller.abort(clientGone?.reason);
  if (clientGone?.aborted) leave();
  else clientGone?.addEventListener("abort", leave, { once: true });
  try {
    controller.signal.throwIfAborted();
    return await untilAborted(work(controller.signal), controller.signal);
  } finally {
    clearTimeout(timer);
    clientGone?.removeEventListener("abort", leave);
  }
}
