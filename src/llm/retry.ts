import { setTimeout } from "node:timers/promises";
import { APIConnectionError, APIError } from "openai";

/** How long to wait between attempts; tests inject a fast sleep or small delays. */
export interface RetryTuning {
  /** First backoff delay; doubles on every retry. */
  baseDelayMs?: number;
  /** Ceiling for the computed backoff (not for a server's Retry-After). */
  maxDelayMs?: number;
  /** A server asking for a longer pause than this is waited for only this long. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told about every retry, e.g. to log "429, waiting 2 s". */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryOptions extends RetryTuning {
  maxRetries: number;
  /** Names the request in errors, e.g. "chat (stage extract)". */
  label: string;
  /** Stops retrying, and cuts a pause short, once the caller aborts. */
  signal?: AbortSignal;
}

export interface RetryEvent {
  label: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

interface FailureVerdict {
  retryable: boolean;
  reason: string;
  status?: number;
  retryAfterMs?: number;
}

/** A request that got no complete answer within its time limit. */
export class RequestTimeoutError extends Error {
  constructor(
    label: string,
    readonly timeoutMs: number,
  ) {
    super(`${label} ${timedOut(timeoutMs)}`);
    this.name = "RequestTimeoutError";
  }
}

function timedOut(timeoutMs: number): string {
  return `timed out after ${timeoutMs} ms with no complete answer`;
}

/**
 * Every attempt failed with a transient error; `status` is the last HTTP status, if any, and
 * `cause` the last attempt's error (a RequestTimeoutError when that one timed out).
 */
export class RetriesExhaustedError extends Error {
  constructor(
    label: string,
    readonly attempts: number,
    readonly status: number | undefined,
    reason: string,
    options: { cause: unknown },
  ) {
    super(
      // The reason's own full stop ("Connection error.") is the sentence's.
      `${label} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}; last error: ${reason.replace(/\.+$/, "")}. ` +
        "Check that the endpoint is up and its rate limits, or raise the timeout or retry limit.",
      options,
    );
    this.name = "RetriesExhaustedError";
  }
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET"]);

/** Reads Retry-After (seconds or HTTP date) and the non-standard retry-after-ms. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const millis = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const raw = headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function errorCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  for (const candidate of [error, cause]) {
    if (candidate && typeof candidate === "object" && "code" in candidate) {
      const code = (candidate as { code: unknown }).code;
      if (typeof code === "string") return code;
    }
  }
  return undefined;
}

/** Rate limits, server errors, timeouts and dropped connections are worth another try; the rest is not. */
export function classifyFailure(error: unknown): FailureVerdict {
  // The label is left out of a reason: RetriesExhaustedError names the request once.
  if (error instanceof RequestTimeoutError) return { retryable: true, reason: timedOut(error.timeoutMs) };
  if (error instanceof APIConnectionError) return { retryable: true, reason: connectionFailure(error) };
  if (error instanceof APIError && typeof error.status === "number") {
    return {
      retryable: RETRYABLE_STATUS(error.status),
      reason: `HTTP ${error.status}: ${withoutStatus(error.message, error.status)}`,
      status: error.status,
      retryAfterMs: retryAfterMs(error.headers),
    };
  }
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  // A stream cut mid-body surfaces as a plain TypeError("terminated") from undici.
  if ((code && NETWORK_CODES.has(code)) || message === "terminated") {
    return { retryable: true, reason: code ? `${code} ${message}` : message };
  }
  return { retryable: false, reason: message };
}

/**
 * The client's "Connection error." alone does not say what failed; the innermost cause does
 * ("connect ECONNREFUSED 127.0.0.1:8000", "getaddrinfo ENOTFOUND host"), naming the endpoint.
 */
function connectionFailure(error: APIConnectionError): string {
  const root = innermostCause(error);
  if (root === error || !root.message) return error.message;
  return `${error.message.replace(/\.+$/, "")} (${root.message})`;
}

function innermostCause(error: Error): Error {
  let current = error;
  // Bounded: a cause chain is short, and a cycle must not hang the error path.
  for (let depth = 0; depth < 8 && current.cause instanceof Error; depth++) current = current.cause;
  return current;
}

/** The openai client's messages start with the status ("500 boom"); the reason says it once. */
function withoutStatus(message: string, status: number): string {
  const rest = message.startsWith(`${status}`) ? message.slice(`${status}`.length).trim() : message;
  return rest || "no message";
}

/** Waits `ms`, or less when `signal` aborts (then throws its reason). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await setTimeout(ms, undefined, { signal });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}

/** Exponential backoff with "equal jitter": half fixed, half random, so clients do not retry in lockstep. */
function backoffMs(attempt: number, tuning: RetryTuning): number {
  const base = tuning.baseDelayMs ?? 500;
  const capped = Math.min(tuning.maxDelayMs ?? 30_000, base * 2 ** (attempt - 1));
  const random = tuning.random ?? Math.random;
  return capped / 2 + (capped / 2) * random();
}

function delayFor(verdict: FailureVerdict, attempt: number, tuning: RetryTuning): number {
  if (verdict.retryAfterMs === undefined) return backoffMs(attempt, tuning);
  // The server said when; honour it (never earlier) with a little jitter on top.
  const asked = Math.min(verdict.retryAfterMs, tuning.maxRetryAfterMs ?? 300_000);
  return asked + Math.min(250, asked * 0.1) * (tuning.random ?? Math.random)();
}

/**
 * Runs `attempt` until it succeeds, a non-transient error occurs (rethrown as is, so callers can
 * inspect it) or `maxRetries` retries are spent (RetriesExhaustedError naming status and attempts).
 */
export async function withRetry<T>(run: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => pause(ms, options.signal));
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    try {
      return await run(attempt);
    } catch (error) {
      const verdict = classifyFailure(error);
      if (!verdict.retryable || options.signal?.aborted) throw error;
      if (attempt > options.maxRetries) {
        throw new RetriesExhaustedError(options.label, attempt, verdict.status, verdict.reason, {
          cause: error,
        });
      }
      const delayMs = delayFor(verdict, attempt, options);
      options.onRetry?.({ label: options.label, attempt, delayMs, reason: verdict.reason });
      await sleep(delayMs);
    }
  }
}
