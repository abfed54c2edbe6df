import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/server/errors.js";
import { effectiveTimeoutMs, withinLimits } from "../../src/server/queries/query-limits.js";
import { serverConfigFrom } from "../../src/server/server-config.js";

describe("a query's time limit", () => {
  it("is the server's queryTimeoutMs (60 s unless KGRAG_QUERY_TIMEOUT_MS or the settings say)", () => {
    expect(serverConfigFrom({}, {}).queryTimeoutMs).toBe(60_000);
    expect(serverConfigFrom({}, { KGRAG_QUERY_TIMEOUT_MS: "0" }).queryTimeoutMs).toBe(0);
    expect(serverConfigFrom({ queryTimeoutMs: 500 }, { KGRAG_QUERY_TIMEOUT_MS: "9" }).queryTimeoutMs).toBe(
      500,
    );
    expect(() => serverConfigFrom({ queryTimeoutMs: -1 }, {})).toThrow(/queryTimeoutMs/);
  });

  it("may be lowered by a request, never raised; with no server limit the request's holds", () => {
    expect(effectiveTimeoutMs(60_000, undefined)).toBe(60_000);
    expect(effectiveTimeoutMs(60_000, 500)).toBe(500);
    expect(effectiveTimeoutMs(60_000, 600_000)).toBe(60_000);
    expect(effectiveTimeoutMs(0, undefined)).toBe(0);
    expect(effectiveTimeoutMs(0, 500)).toBe(500);
  });

  it("rejects with a 504 query_timeout when it passes, aborting the work's signal", async () => {
    let workSignal: AbortSignal | undefined;
    const outcome = withinLimits(20, undefined, (signal) => {
      workSignal = signal;
      return new Promise<never>(() => {});
    });
    await expect(outcome).rejects.toMatchObject({ status: 504, code: "query_timeout" });
    await expect(outcome).rejects.toBeInstanceOf(ApiError);
    expect(workSignal?.aborted).toBe(true);
  });

  it("rejects as the client left, at once, when its connection closes first", async () => {
    const client = new AbortController();
    let workSignal: AbortSignal | undefined;
    const outcome = withinLimits(0, client.signal, (signal) => {
      workSignal = signal;
      return new Promise<never>(() => {});
    });
    client.abort(new ApiError(499, "client_closed_request", "gone"));
    await expect(outcome).rejects.toMatchObject({ status: 499 });
    expect(workSignal?.aborted).toBe(true);
  });
});
