import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";

/**
 * Lock files beside the HNSW files, shared by every process on a workspace: a writer, readers that
 * rebuild a lost file, and a background fold. The file holds its owner's pid, so a lock left by a
 * killed process is taken over at once (its pid is gone) or, for short locks, once it is old.
 */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const UNFILLED_STALE_MS = 60_000;

/** The lock when free (or left by a dead owner, or older than `staleMs` when that is above 0); else undefined. */
export function tryLock(path: string, staleMs: number): (() => void) | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (!isStale(path, staleMs)) return undefined;
      rmSync(path, { force: true });
    }
  }
  return undefined;
}

/** Waits (blocking, in 5 ms steps) up to `timeoutMs` for the lock. */
export function lockWaiting(path: string, timeoutMs: number, staleMs: number): () => void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const release = tryLock(path, staleMs);
    if (release) return release;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for the lock ${path}`);
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

/** Whether a live process holds the lock at `path`. */
export function isHeld(path: string): boolean {
  try {
    return !isStale(path, 0);
  } catch {
    return false;
  }
}

function isStale(path: string, staleMs: number): boolean {
  let owner: number;
  let modifiedMs: number;
  try {
    owner = Number(readFileSync(path, "utf8"));
    modifiedMs = statSync(path).mtimeMs;
  } catch (error) {
    // Released between our attempt and this look: free now.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
  if (owner > 0 && !isAlive(owner)) return true;
  // An empty file is one being written right now, unless it has been so for long (its writer died
  // between creating and filling it).
  const age = Date.now() - modifiedMs;
  if (!(owner > 0) && age > UNFILLED_STALE_MS) return true;
  return staleMs > 0 && age > staleMs;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
