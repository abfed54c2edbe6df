import { readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc counts CPU time in ticks of 10 ms. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * User plus system CPU seconds another process has used so far, from /proc (undefined where there
 * is no /proc or once the process is gone).
 */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    // utime and stime are fields 14 and 15; the command name (field 2) may hold spaces, so count
    // the fields after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** The same for a process that must be running (the benches' own Neo4j): a clear error otherwise. */
export function runningProcessCpuSeconds(pid: number): number {
  const seconds = processCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`cannot read the CPU time of process ${pid} from /proc`);
  return seconds;
}
