import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** True when a process with this id runs on this host (EPERM: it runs, as another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When process `pid` started, as an opaque token that tells it from a later process given the
 * same pid: /proc/<pid>/stat's field 22 (clock ticks after boot), or `ps -o lstart` where there is
 * no /proc (macOS). Null when neither can say (no such process, no ps).
 */
export function processStartTime(pid: number): string | null {
  return startTimeFromProc(pid) ?? startTimeFromPs(pid);
}

function startTimeFromProc(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // Field 2, the command name, is in parentheses and may hold spaces: count from after it (field 3).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTime = fields[22 - 3];
  return startTime ? `proc:${startTime}` : null;
}

function startTimeFromPs(pid: number): string | null {
  try {
    const out = execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, LC_ALL: "C" },
    }).trim();
    return out ? `ps:${out}` : null;
  } catch {
    return null;
  }
}
