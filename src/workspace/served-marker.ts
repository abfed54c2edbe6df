import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isRunning, processStartTime } from "../util/process-alive.js";

/**
 * The files `kgrag serve` keeps in each workspace it serves, one per server process: a server
 * holds the database open between requests, so a restore that swapped the folder under it would
 * leave it answering from the old file and losing its later writes. A restore refuses while any
 * server they name runs. One file per process, so that two servers of one workspace do not
 * overwrite each other's mark, and the first to stop does not remove the other's.
 */
const SERVED_MARKER_PATTERN = /^kgrag\.served\.\d+\.json$/;

/** The name of the mark process `pid` keeps in each workspace it serves. */
export function servedMarkerName(pid: number): string {
  return `kgrag.served.${pid}.json`;
}

/** Whether `name` (a file name in a workspace's top folder) is a server's mark. */
export function isServedMarker(name: string): boolean {
  return SERVED_MARKER_PATTERN.test(name);
}

export interface ServedBy {
  pid: number;
  host: string;
  url: string;
  since: string;
  /**
   * The server process's start time (processStartTime): a later process given the same pid has
   * another, so its mark is not taken for the server's. Absent in marks of earlier versions.
   */
  started?: string;
}

/**
 * A server's mark that may be live, and the file holding it (the way out when it cannot be
 * checked). `otherHost`: written on another host (a shared folder), where its process cannot be seen.
 */
export interface ActiveServer extends ServedBy {
  marker: string;
  otherHost: boolean;
}

/**
 * Marks the workspaces served by this process at `url`; the returned call (or the process's exit)
 * removes this process's marks only. When a mark cannot be written, the marks already written are
 * removed and the error says which workspace failed.
 */
export function markServed(workspaces: readonly string[], url: string): () => void {
  const started = processStartTime(process.pid);
  const by: ServedBy = {
    pid: process.pid,
    host: hostname(),
    url,
    since: new Date().toISOString(),
    ...(started ? { started } : {}),
  };
  const written: string[] = [];
  const remove = () => {
    for (const file of written) rmSync(file, { force: true });
    process.off("exit", remove);
  };
  process.on("exit", remove);
  for (const workspace of workspaces) {
    const file = join(workspace, servedMarkerName(process.pid));
    try {
      writeMark(file, by);
    } catch (error) {
      remove();
      throw new Error(`cannot write the served marker ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    written.push(file);
  }
  return remove;
}

/** A new file of its own ("wx" after removing the name): never written through a link left there. */
function writeMark(file: string, by: ServedBy): void {
  rmSync(file, { force: true });
  writeFileSync(file, JSON.stringify(by), { flag: "wx", mode: 0o600 });
}

/**
 * The servers serving `workspace` now: each mark's process while it runs on this host with the
 * start time the mark records (a killed server's mark is stale and ignored, as is one whose pid an
 * unrelated process has now, or that names no real process: pid 0, 1 or below); a mark from
 * another host is kept, as it cannot be checked from here, and says so (`otherHost`).
 */
export function activeServers(workspace: string): ActiveServer[] {
  let names: string[];
  try {
    names = readdirSync(workspace).filter(isServedMarker);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const marker = join(workspace, name);
    const by = readMark(marker);
    if (!by) return [];
    const otherHost = by.host !== hostname();
    if (!otherHost && !isLive(by)) return [];
    return [{ ...by, marker, otherHost }];
  });
}

/**
 * Whether the mark's server still runs here: its pid runs, and started when the mark says. A mark
 * without a start time (an earlier version's), or a process whose start cannot be read, is taken
 * at its pid.
 */
function isLive(by: ServedBy): boolean {
  if (!isRunning(by.pid)) return false;
  if (by.started === undefined) return true;
  const started = processStartTime(by.pid);
  return started === null || started === by.started;
}

/** The mark in `file`, or null when it is unreadable or names no process a server could be. */
function readMark(file: string): ServedBy | null {
  let by: Partial<ServedBy> | null;
  try {
    by = JSON.parse(readFileSync(file, "utf8")) as Partial<ServedBy> | null;
  } catch {
    return null;
  }
  if (typeof by?.pid !== "number" || !Number.isInteger(by.pid) || by.pid <= 1) return null;
  if (typeof by.host !== "string") return null;
  if (by.started !== undefined && typeof by.started !== "string") return null;
  return by as ServedBy;
}
