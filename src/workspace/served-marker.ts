import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isRunning } from "../util/process-alive.js";

/**
 * The file `kgrag serve` keeps in each workspace it serves: a server holds the database open
 * between requests, so a restore that swapped the folder under it would leave it answering from
 * the old file and losing its later writes. A restore refuses while the server it names runs.
 */
export const SERVED_MARKER = "kgrag.served.json";

export interface ServedBy {
  pid: number;
  host: string;
  url: string;
  since: string;
}

/** Marks the workspaces served by this process at `url`; the returned call (or the process's exit) removes the marks. */
export function markServed(workspaces: readonly string[], url: string): () => void {
  const by: ServedBy = { pid: process.pid, host: hostname(), url, since: new Date().toISOString() };
  const files = workspaces.map((workspace) => join(workspace, SERVED_MARKER));
  for (const file of files) writeFileSync(file, JSON.stringify(by));
  const remove = () => {
    for (const file of files) rmSync(file, { force: true });
    process.off("exit", remove);
  };
  process.on("exit", remove);
  return remove;
}

/**
 * The server serving `workspace` now: the marker's process while it runs on this host (a killed
 * server's mark is stale and ignored); a mark from another host is trusted, as it cannot be checked.
 */
export function activeServer(workspace: string): ServedBy | null {
  let by: Partial<ServedBy>;
  try {
    by = JSON.parse(readFileSync(join(workspace, SERVED_MARKER), "utf8")) as Partial<ServedBy>;
  } catch {
    return null;
  }
  if (typeof by.pid !== "number" || typeof by.host !== "string") return null;
  if (by.host === hostname() && !isRunning(by.pid)) return null;
  return by as ServedBy;
}
