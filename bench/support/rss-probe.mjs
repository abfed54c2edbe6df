// Preloaded into a CLI child by bench/index-offline-distinct.ts (node --import <this file>): writes
// the process's peak resident set size, in megabytes, to KGRAG_BENCH_RSS_FILE when it exits. Unlike
// bench/memory-probe.mjs it forces no garbage collection, so it does not slow the run it measures.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.KGRAG_BENCH_RSS_FILE)
    writeFileSync(process.env.KGRAG_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS / 1024));
});
