import { APIError } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../src/llm/openai-chat.js";
import { durationMs, type LimiterClock, RateLimiter, TokenBucket } from "../../src/llm/rate-limiter.js";
import { rateLimitedChat } from "../support/rate-limited-chat.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

/** A clock that only moves when the limiter sleeps, so every test runs in no real time. */
function fakeClock(): LimiterClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

describe("TokenBucket", () => {
  it("lets its capacity through at once, then refills at the rate", () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(120, 2, clock); // 2 a second
    expect(bucket.waitMs(1)).toBe(0);
    bucket.take(1);
    bucket.take(1);
    expect(bucket.waitMs(1)).toBe(500);
  });

  it("takes a cost bigger than its capacity once full, and the debt delays the next", () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(600, 10, clock); // 10 a second, capacity 10
    expect(bucket.waitMs(50)).toBe(0);
    bucket.take(50);
    expect(bucket.waitMs(1)).toBe(4100);
  });
});

describe("RateLimiter", () => {
  it("spaces requests at the configured rate: no minute ever holds more than the limit", async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ requestsPerMinute: 60 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < 150; i++) {
      await limiter.acquire(0);
      starts.push(clock.now());
    }
    for (const start of starts) {
      expect(starts.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(60);
    }
    // Evenly spaced, 2% under the limit.
    expect(Math.abs((starts.at(-1) ?? 0) - 149 * (1000 / 0.98))).toBeLessThan(200);
  });

  it("counts prompt and completion tokens: a request waits for the tokens the last one really used", async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ tokensPerMinute: 6000 }, clock); // 100 a second
    await limiter.acquire(100);
    limiter.settle(100, 300); // it used 200 more than estimated
    await limiter.acquire(100);
    expect(clock.now()).toBe(3000);
  });

  it("pauses every caller for a 429's Retry-After and for a spent x-ratelimit window", async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({}, clock);
    const tooMany = APIError.generate(
      429,
      { message: "slow down" },
      undefined,
      new Headers({ "retry-after": "7" }),
    );
    limiter.observeFailure(tooMany);
    await limiter.acquire(0);
    expect(clock.now()).toBe(7000);
    limiter.observe(
      new Headers({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m30s" }),
    );
    await limiter.acquire(0);
    expect(clock.now()).toBe(97_000);
  });

  it("reads OpenAI's reset durations", () => {
    expect(durationMs("6m0s")).toBe(360_000);
    expect(durationMs("59.5s")).toBe(59_500);
    expect(durationMs("120ms")).toBe(120);
    expect(durationMs("2")).toBe(2000);
    expect(durationMs("soon")).toBeUndefined();
  });
});

describe("chat against a server enforcing 2 requests a second", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it("with the limit configured, every call succeeds", async () => {
    const limited = rateLimitedChat(2, 1000);
    server = await startScriptedOpenAI({ chat: limited.handler });
    const chat = new OpenAIChatModel(
      {
        baseURL: server.baseURL,
        model: "m",
        concurrency: 4,
        timeoutMs: 10_000,
        maxRetries: 5,
        requestsPerMinute: 120,
      },
      { baseDelayMs: 10 },
    );
    const calls = Array.from({ length: 5 }, (_, i) =>
      chat.chat({ stage: "answer", messages: [{ role: "user", content: `q${i}` }] }),
    );
    const replies = await Promise.all(calls);
    expect(replies.map((r) => r.text)).toEqual(Array(5).fill("ok"));
    expect(limited.log.accepted).toHaveLength(5);
  });

  it("without a limit configured, 429s are retried no sooner than their Retry-After, and none fails", async () => {
    const limited = rateLimitedChat(2, 1000);
    server = await startScriptedOpenAI({ chat: limited.handler });
    const chat = new OpenAIChatModel(
      { baseURL: server.baseURL, model: "m", concurrency: 4, timeoutMs: 10_000, maxRetries: 8 },
      { baseDelayMs: 10 },
    );
    const calls = Array.from({ length: 6 }, (_, i) =>
      chat.chat({ stage: "answer", messages: [{ role: "user", content: `q${i}` }] }),
    );
    const replies = await Promise.all(calls);
    expect(replies.map((r) => r.text)).toEqual(Array(6).fill("ok"));
    expect(limited.log.refused.length).toBeGreaterThan(0);
    // A refused call comes back no sooner than the pause the server asked for.
    for (const refusal of limited.log.refused) {
      const next = limited.log.arrivals.get(refusal.message)?.find((t) => t > refusal.at);
      expect(next).toBeDefined();
      expect((next ?? 0) - refusal.at).toBeGreaterThanOrEqual(refusal.retryAfterMs - 5);
    }
  });
});
