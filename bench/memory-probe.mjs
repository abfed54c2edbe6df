// Preloaded by bench/lifecycle-memory.ts into a CLI child (NODE_OPTIONS="--expose-gc --import
// <this file>") to record the peak of its live JavaScript memory: heap plus the buffers it holds,
// measured right after garbage collections (forced twice a second, and after every major one V8
// runs by itself), so garbage waiting to be collected does not count. Written at exit, in
// megabytes, to KGRAG_TEST_MEMORY_FILE.
import { writeFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";

let peak = 0;
const measure = () => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.heapUsed + m.external + m.arrayBuffers);
};
setInterval(() => {
  globalThis.gc?.();
  measure();
}, 500).unref();
new PerformanceObserver((list) => {
  if (list.getEntries().some((e) => e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) measure();
}).observe({ entryTypes: ["gc"] });
process.on("exit", () => {
  globalThis.gc?.();
  measure();
  if (process.env.KGRAG_TEST_MEMORY_FILE)
    writeFileSync(process.env.KGRAG_TEST_MEMORY_FILE, String(peak / 2 ** 20));
});
