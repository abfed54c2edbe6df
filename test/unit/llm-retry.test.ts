import { APIConnectionError, APIError, BadRequestError } from "openai";
import { describe, expect, it } from "vitest";
import {
  classifyFailure,
  RequestTimeoutError,
  RetriesExhaustedError,
  retryAfterMs,
  withRetry,
} from "../../src/llm/retry.js";

function httpError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { message: `status ${status}` }, undefined, new Headers(headers));
}

/** Runs withRetry with a recorded, instant sleep; `failures` are thrown in order before success. */
async function runWith(failures: unknown[], maxRetries = 5) {
  const delays: number[] = [];
  let calls = 0;
  const result = await withRetry(
    async () => {
      const failure = failures[calls];
      calls += 1;
      if (failure) throw failure;
      return "ok";
    },
    { maxRetries, label: "test call", sleep: async (ms) => void delays.push(ms), random: () => 0.5 },
  );
  return { result, delays, calls };
}

describe("retryAfterMs", () => {
  it("reads seconds, HTTP dates and retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe("classifyFailure", () => {
  it("retries rate limits, server errors, timeouts and dropped connections only", () => {
    expect(classifyFailure(httpError(429)).retryable).toBe(true);
    expect(classifyFailure(httpError(503)).retryable).toBe(true);
    expect(classifyFailure(new RequestTimeoutError("x", 10)).retryable).toBe(true);
    expect(classifyFailure(new APIConnectionError({ message: "refused" })).retryable).toBe(true);
    expect(classifyFailure(Object.assign(new Error("reset"), { code: "ECONNRESET" })).retryable).toBe(true);
    expect(classifyFailure(httpError(400)).retryable).toBe(false);
    expect(classifyFailure(httpError(401)).retryable).toBe(false);
    expect(classifyFailure(new Error("bug")).retryable).toBe(false);
  });
});

describe("withRetry", () => {
  it("waits at least what Retry-After asks, then succeeds", async () => {
    const { result, delays, calls } = await runWith([httpError(429, { "retry-after": "2" })]);
    expect(result).toBe("ok");
    expect(calls).toBe(2);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[0]).toBeLessThan(2300);
  });

  it("backs off exponentially when the server gives no hint", async () => {
    const { delays } = await runWith([httpError(500), httpError(502), httpError(503)]);
    expect(delays).toHaveLength(3);
    expect(delays[1]).toBeCloseTo(delays[0]! * 2);
    expect(delays[2]).toBeCloseTo(delays[1]! * 2);
  });

  it("rethrows a non-transient error at once, unwrapped", async () => {
    const badRequest = httpError(400);
    expect(badRequest).toBeInstanceOf(BadRequestError);
    await expect(runWith([badRequest])).rejects.toBe(badRequest);
  });

  it("gives up after maxRetries naming the status and the attempts", async () => {
    const failures = Array.from({ length: 10 }, () => httpError(503));
    const error = await runWith(failures, 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    const exhausted = error as RetriesExhaustedError;
    expect(exhausted.attempts).toBe(3);
    expect(exhausted.status).toBe(503);
    expect(exhausted.message).toMatch(/test call failed after 3 attempts.*HTTP 503/);
  });

  it("ends the last error's sentence with one full stop (the client's 'Connection error.')", async () => {
    const failures = Array.from(
      { length: 3 },
      () => new APIConnectionError({ message: "Connection error." }),
    );
    const error = (await runWith(failures, 1).catch((e: unknown) => e)) as RetriesExhaustedError;
    expect(error.message).toContain("last error: Connection error. Check that the endpoint is up");
    expect(error.message).not.toContain("..");
  });

  it("says why a connection failed, naming the endpoint (the client's message alone does not)", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:59999"), {
      code: "ECONNREFUSED",
    });
    const fetchFailed = new TypeError("fetch failed", { cause: refused });
    const failures = [new APIConnectionError({ message: "Connection error.", cause: fetchFailed })];
    const error = (await runWith(failures, 0).catch((e: unknown) => e)) as RetriesExhaustedError;
    expect(error.message).toContain(
      "last error: Connection error (connect ECONNREFUSED 127.0.0.1:59999). Check that the endpoint is up",
    );
  });
});
