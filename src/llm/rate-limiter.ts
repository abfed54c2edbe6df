import { setTimeout } from "node:timers/promises";
import { APIError } from "openai";
import { retryAfterMs } from "./retry.js";

/** Time as the limiter sees it; tests pass a fake one. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: LimiterClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => setTimeout(ms, undefined, { signal }),
};

/**
 * A token bucket refilled at `perMinute` units a minute that saves up at most `capacity` (so a
 * fresh run cannot burst past a server's sliding window). A cost bigger than that is taken once
 * the bucket is full and leaves it in debt: a large prompt waits for nobody, the next request
 * waits until the debt is paid, and the long-run rate stays the limit.
 */
export class TokenBucket {
  private level: number;
  private last: number;
  private readonly capacity: number;
  private readonly perMs: number;

  constructor(
    perMinute: number,
    capacity: number,
    private readonly clock: LimiterClock = realClock,
  ) {
    this.perMs = perMinute / 60_000;
    this.capacity = Math.max(1, capacity);
    this.level = this.capacity;
    this.last = clock.now();
  }

  /** Milliseconds until `cost` may be taken (0: now). */
  waitMs(cost: number): number {
    this.refill();
    const needed = Math.min(cost, this.capacity);
    return this.level >= needed ? 0 : Math.ceil((needed - this.level) / this.perMs);
  }

  take(cost: number): void {
    this.refill();
    this.level -= cost;
  }

  /** Gives back what an estimate took too much (a negative amount takes what it took too little). */
  give(amount: number): void {
    this.refill();
    this.level = Math.min(this.capacity, this.level + amount);
  }

  /** Empties the bucket: the server says this window is used up. */
  empty(): void {
    this.refill();
    this.level = Math.min(this.level, 0);
  }

  private refill(): void {
    const now = this.clock.now();
    this.level = Math.min(this.capacity, this.level + (now - this.last) * this.perMs);
    this.last = now;
  }
}

/** Share of the request limit used: 2% under it absorbs arrival jitter and costs 2% of throughput. */
const REQUEST_HEADROOM = 0.98;

export interface RateLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/**
 * Requests and tokens per minute for one endpoint and model, shared by every stage that uses it.
 * Besides its own buckets it honours what the server says: a 429's Retry-After and the
 * x-ratelimit-remaining-* / x-ratelimit-reset-* headers pause every caller, not only the one told.
 */
export class RateLimiter {
  private readonly requests: TokenBucket | null;
  private readonly tokens: TokenBucket | null;
  private pausedUntil = 0;

  constructor(
    limits: RateLimits,
    private readonly clock: LimiterClock = realClock,
  ) {
    // Requests go out evenly spaced, one at a time, a little under the limit: a request delayed on
    // the way must not push a later one into the same server window. Tokens may gather a second's worth.
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = limits;
    this.requests = rpm ? new TokenBucket(rpm * REQUEST_HEADROOM, 1, clock) : null;
    this.tokens = tpm ? new TokenBucket(tpm, tpm / 60, clock) : null;
  }

  /** Whether counting a request's tokens is worth it: only when tokens are limited. */
  get countsTokens(): boolean {
    return this.tokens !== null;
  }

  /** Waits until one request of about `tokens` prompt and completion tokens may be sent, then takes it. */
  async acquire(tokens: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = Math.max(
        this.pausedUntil - this.clock.now(),
        this.requests?.waitMs(1) ?? 0,
        this.tokens?.waitMs(tokens) ?? 0,
      );
      if (wait <= 0) {
        this.requests?.take(1);
        this.tokens?.take(tokens);
        return;
      }
      await this.clock.sleep(wait, signal);
    }
  }

  /** Corrects the token bucket once the real usage is known. */
  settle(estimated: number, actual: number): void {
    this.tokens?.give(estimated - actual);
  }

  /** Holds every caller for `ms` (a 429's Retry-After, or a window the server says is spent). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Reads the rate-limit headers of any answer, good or 429. */
  observe(headers: Headers | undefined): void {
    if (!headers) return;
    for (const kind of ["requests", "tokens"] as const) {
      const remaining = Number(headers.get(`x-ratelimit-remaining-${kind}`) ?? Number.NaN);
      const reset = durationMs(headers.get(`x-ratelimit-reset-${kind}`));
      if (remaining === 0 && reset !== undefined) {
        this.pause(reset);
        (kind === "requests" ? this.requests : this.tokens)?.empty();
      }
    }
  }

  /** Learns from a failed attempt: a 429 pauses everyone for as long as the server asks. */
  observeFailure(error: unknown): void {
    if (!(error instanceof APIError)) return;
    this.observe(error.headers);
    if (error.status !== 429) return;
    const asked = retryAfterMs(error.headers);
    if (asked !== undefined) this.pause(asked);
    this.requests?.empty();
  }
}

/** OpenAI's reset durations: "1s", "6m0s", "59.5s", "120ms", or plain seconds. */
export function durationMs(raw: string | null): number | undefined {
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let matched = "";
  for (const [part, value, unit] of raw.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(value) * (unitMs[unit as string] ?? 0);
    matched += part;
  }
  return matched === raw ? total : undefined;
}

/**
 * One limiter per endpoint, model and limits: stages sharing a model share its budget. An
 * endpoint with no limits configured still gets one, to share the server's 429 pauses.
 */
export class RateLimiters {
  private readonly byKey = new Map<string, RateLimiter>();

  constructor(private readonly clock: LimiterClock = realClock) {}

  for(endpoint: { baseURL?: string; model: string } & RateLimits): RateLimiter {
    const { baseURL, model, requestsPerMinute, tokensPerMinute } = endpoint;
    const key = JSON.stringify([baseURL, model, requestsPerMinute, tokensPerMinute]);
    let limiter = this.byKey.get(key);
    if (!limiter) {
      limiter = new RateLimiter({ requestsPerMinute, tokensPerMinute }, this.clock);
      this.byKey.set(key, limiter);
    }
    return limiter;
  }
}
