import { describe, expect, it } from "vitest";
import { SharedWorkCache } from "../../src/util/shared-work-cache.js";

describe("SharedWorkCache", () => {
  it("computes a key once: later and concurrent lookups share the value and say hit", async () => {
    const cache = new SharedWorkCache<string>({ maxEntries: 10, maxBytes: 1_000 });
    let computed = 0;
    let release: (value: string) => void = () => {};
    const compute = () => {
      computed++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    const first = cache.get("k", compute);
    const second = cache.get("k", compute);
    release("answer");
    expect(await first).toEqual({ value: "answer", hit: false });
    expect(await second).toEqual({ value: "answer", hit: true });
    expect(await cache.get("k", compute)).toEqual({ value: "answer", hit: true });
    expect(computed).toBe(1);
  });

  it("keeps nothing of a failed computation, so the next lookup computes again", async () => {
    const cache = new SharedWorkCache<string>({ maxEntries: 10, maxBytes: 1_000 });
    await expect(cache.get("k", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(cache.size).toBe(0);
    expect(await cache.get("k", async () => "ok")).toEqual({ value: "ok", hit: false });
  });

  it("cancels shared work only once every caller of it has left, each caller stopping at once", async () => {
    const cache = new SharedWorkCache<string>({ maxEntries: 10, maxBytes: 1_000 });
    let computeSignal: AbortSignal | undefined;
    const compute = (signal: AbortSignal) => {
      computeSignal = signal;
      return new Promise<string>(() => {});
    };
    const [first, second] = [new AbortController(), new AbortController()];
    const one = cache.get("k", compute, first.signal);
    const two = cache.get("k", compute, second.signal);
    first.abort(new Error("first left"));
    await expect(one).rejects.toThrow("first left");
    expect(computeSignal?.aborted).toBe(false);
    second.abort(new Error("second left"));
    await expect(two).rejects.toThrow("second left");
    expect(computeSignal?.aborted).toBe(true);
    // The cancelled work is not joined by a later request: it computes afresh.
    expect(await cache.get("k", async () => "fresh")).toEqual({ value: "fresh", hit: false });
  });

  it("never cancels work a caller without a signal waits for", async () => {
    const cache = new SharedWorkCache<string>({ maxEntries: 10, maxBytes: 1_000 });
    let release: (value: string) => void = () => {};
    let computeSignal: AbortSignal | undefined;
    const compute = (signal: AbortSignal) => {
      computeSignal = signal;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    const leaving = new AbortController();
    const staying = cache.get("k", compute);
    const left = cache.get("k", compute, leaving.signal);
    leaving.abort(new Error("left"));
    await expect(left).rejects.toThrow("left");
    expect(computeSignal?.aborted).toBe(false);
    release("answer");
    expect(await staying).toEqual({ value: "answer", hit: false });
  });

  it("evicts by count and by bytes, and clear() drops everything", async () => {
    const cache = new SharedWorkCache<string>({ maxEntries: 2, maxBytes: 10 });
    await cache.get("a", async () => "aaaa");
    await cache.get("b", async () => "bbbb");
    await cache.get("c", async () => "cccc");
    expect(cache.size).toBe(2);
    expect((await cache.get("a", async () => "fresh")).hit).toBe(false);
    await cache.get("big", async () => "x".repeat(9));
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
