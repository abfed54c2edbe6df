/**
 * Preloaded into a child process (NODE_OPTIONS=--import, since Node refuses --cpu-prof there) by
 * bench/server-load.ts --cpu-prof DIR: profiles the process from the first query numbered
 * KGRAG_BENCH_CPU_PROFILE_FROM or above (the measured load's, so that start-up and warm-up are left out) and writes DIR/query-PID.cpuprofile
 * when it exits. The session is the process's own, so its messages are answered at once, inside
 * the exit handler.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.KGRAG_BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 200 });
  const from = Number(process.env.KGRAG_BENCH_CPU_PROFILE_FROM ?? 0);
  let started = false;
  process.on("message", (message) => {
    if (started || message?.type !== "query" || message.id < from) return;
    started = true;
    session.post("Profiler.start");
  });
  process.on("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(join(dir, `query-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
