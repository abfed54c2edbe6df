import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { isRunning } from "../util/process-alive.js";
import { describeWriterHolder } from "../util/writer-holder.js";

export const LOCK_NAME = "kgrag.lock";
/** Written inside the lock folder, so it disappears with the lock it describes. */
const OWNER_FILE = "owner.json";

export interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

export class WorkspaceBusyError extends Error {
  constructor(workspace: string, owner?: LockOwner) {
    super(
      `Workspace ${workspace} is being written by ${describeWriterHolder(owner)}. ` +
        `Wait for it to finish and run the command again (lock: ${join(workspace, LOCK_NAME)}).`,
    );
    this.name = "WorkspaceBusyError";
  }
}

/**
 * A holder names itself right after creating the lock folder: a folder still unnamed after this
 * long was left by a process that died in between (or while releasing it), and is taken over.
 */
const UNNAMED_GRACE_MS = 1_000;

/** A lock its holder has not refreshed for this long is stale, whoever held it (proper-lockfile). */
const STALE_MS = 30_000;

/** Lock folders this process holds, removed on exit: a second Ctrl-C exits without awaiting release. */
const held = new Set<string>();
process.on("exit", () => {
  for (const folder of held) rmSync(folder, { recursive: true, force: true });
});

/**
 * Holds the workspace's writer lock while `work` runs: two `kgrag index` processes never interleave
 * their writes. The lock is refreshed while held and removed even when the process exits early. A
 * lock whose holder died on this host (kill -9) is taken over at once; one left by a process
 * elsewhere goes stale after 30 seconds.
 */
export async function withWorkspaceLock<T>(workspace: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(workspace, { recursive: true });
  const release = await acquire(workspace);
  try {
    return await work();
  } finally {
    await release();
  }
}

async function acquire(workspace: string): Promise<() => Promise<void>> {
  try {
    return await lockOnce(workspace);
  } catch (error) {
    if (!isLocked(error) && !isStaleWithOwner(error)) throw error;
  }
  const reclaimed = await reclaimFromDeadOwner(workspace);
  if (reclaimed) return reclaimed;
  throw new WorkspaceBusyError(workspace, readOwner(workspace));
}

async function lockOnce(workspace: string): Promise<() => Promise<void>> {
  const release = await lockfile.lock(workspace, {
    lockfilePath: join(workspace, LOCK_NAME),
    stale: STALE_MS,
    update: 5_000,
    retries: 0,
  });
  const folder = join(workspace, LOCK_NAME);
  const { atime, mtime } = statSync(folder);
  held.add(folder);
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileSync(join(folder, OWNER_FILE), JSON.stringify(owner));
  // proper-lockfile takes a changed folder mtime for a lock stolen from it; adding a file changed it.
  utimesSync(folder, atime, mtime);
  return async () => {
    rmSync(join(folder, OWNER_FILE), { force: true });
    await release();
    held.delete(folder);
  };
}

/**
 * Takes the lock over when its owner is a process of this host that no longer runs, or when it
 * was never named (its holder died between creating and naming it). Reclaimers queue on a second,
 * short-lived lock, so two of them never both remove and re-take the same lock.
 */
async function reclaimFromDeadOwner(workspace: string): Promise<(() => Promise<void>) | null> {
  // A lock on another path: proper-lockfile tracks its locks by path, one per path and process.
  const releaseMutex = await lockfile
    .lock(join(workspace, `${LOCK_NAME}-reclaim`), {
      realpath: false,
      stale: 5_000,
      retries: { retries: 50, minTimeout: 20, maxTimeout: 100 },
    })
    .catch((error: unknown) => {
      if (isLocked(error)) return null;
      throw error;
    });
  if (!releaseMutex) return null;
  try {
    const owner = await namedOwner(workspace);
    if (owner === "released") return await lockOnce(workspace);
    // A holder of this host is judged by whether it runs; one elsewhere by whether it refreshes.
    const stale = (lockAgeMs(workspace) ?? 0) >= STALE_MS;
    if (owner !== "unnamed" && (owner.host === hostname() ? isRunning(owner.pid) : !stale)) return null;
    rmSync(join(workspace, LOCK_NAME), { recursive: true, force: true });
    return await lockOnce(workspace);
  } catch (error) {
    if (isLocked(error)) return null;
    throw error;
  } finally {
    await releaseMutex();
  }
}

/**
 * The process writing the workspace now, judged like a reclaimer judges the lock: a holder of this
 * host while it runs, one elsewhere while it refreshes the lock. "unnamed": a live lock whose
 * holder has not written its name (yet). Null when no run holds the lock, such as after kill -9.
 */
export function activeWriter(workspace: string): LockOwner | "unnamed" | null {
  const age = lockAgeMs(workspace);
  if (age === null) return null;
  const owner = readOwner(workspace);
  if (!owner) return age < STALE_MS ? "unnamed" : null;
  if (owner.host === hostname()) return isRunning(owner.pid) ? owner : null;
  return age < STALE_MS ? owner : null;
}

/**
 * The lock's owner, once it is named: an unnamed lock younger than UNNAMED_GRACE_MS is waited on,
 * since its holder may be between creating and naming it.
 */
async function namedOwner(workspace: string): Promise<LockOwner | "unnamed" | "released"> {
  for (;;) {
    const owner = readOwner(workspace);
    if (owner) return owner;
    const age = lockAgeMs(workspace);
    if (age === null) return "released";
    if (age >= UNNAMED_GRACE_MS) return "unnamed";
    await sleep(UNNAMED_GRACE_MS - age);
  }
}

/** Time since the lock folder last changed (its holder keeps it fresh), or null without a lock. */
function lockAgeMs(workspace: string): number | null {
  try {
    return Date.now() - statSync(join(workspace, LOCK_NAME)).mtimeMs;
  } catch {
    return null;
  }
}

function readOwner(workspace: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(
      readFileSync(join(workspace, LOCK_NAME, OWNER_FILE), "utf8"),
    ) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string" ? (owner as LockOwner) : undefined;
  } catch {
    // No owner file yet (the holder is between taking the lock and writing it) or an old lock.
    return undefined;
  }
}

/**
 * proper-lockfile removes a stale lock folder with rmdir, which fails on the owner file inside it:
 * the lock is then taken over as a stale one (a holder killed over STALE_MS ago, e.g. on busy cores
 * where the next run took that long to start).
 */
function isStaleWithOwner(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOTEMPTY";
}

function isLocked(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ELOCKED";
}
