import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { StageClock } from "../../src/pipeline/stage-timings.js";

describe("StageClock", () => {
  it("sums a stage's pieces run one after another", async () => {
    const clock = new StageClock();
    await clock.time("a", () => sleep(30));
    await clock.time("a", () => sleep(30));
    expect(clock.snapshot().a).toBeGreaterThanOrEqual(55);
  });

  it("counts pieces running at the same time once", async () => {
    const clock = new StageClock();
    const started = performance.now();
    await Promise.all(Array.from({ length: 20 }, () => clock.time("extract.extractor", () => sleep(40))));
    const wall = performance.now() - started;
    const { "extract.extractor": ms } = clock.snapshot();
    expect(ms).toBeGreaterThanOrEqual(38);
    // Twenty calls of 40 ms in flight together: about the wall time, not 800 ms.
    expect(ms).toBeLessThanOrEqual(Math.ceil(wall) + 1);
  });

  it("times a stage again after it went idle, and keeps stages apart", async () => {
    const clock = new StageClock();
    const wallOf = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const first = await wallOf(() =>
      Promise.all([clock.time("a", () => sleep(20)), clock.time("a", () => sleep(20))]),
    );
    await sleep(50);
    const second = await wallOf(() => clock.time("a", () => sleep(20)));
    await clock.time("b", () => Promise.resolve());
    const { a, b } = clock.snapshot();
    expect(a).toBeGreaterThanOrEqual(38);
    // The idle gap between the two spans is not counted.
    expect(a).toBeLessThanOrEqual(Math.ceil(first + second) + 1);
    expect(b).toBeLessThan(a as number);
  });

  it("stops the span of a failing piece too", async () => {
    const clock = new StageClock();
    await expect(clock.time("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(clock.snapshot().a).toBeGreaterThanOrEqual(0);
    await clock.time("a", () => sleep(10));
    expect(clock.snapshot().a).toBeGreaterThanOrEqual(9);
  });
});
