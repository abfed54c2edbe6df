import { randomBytes } from "node:crypto";
import {
  existsSync,
  linkSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { isRunning } from "../../util/process-alive.js";

/**
 * Lock files beside the HNSW files, shared by every process on a workspace: a writer, readers that
 * rebuild a lost file, and a background fold. The file holds its owner's pid and a token of its
 * own; a lock left by a killed process is taken over at once (its pid is gone) or once it is older
 * than the lock's staleness (a pid can be reused), and a release removes the lock only while it
 * is still its owner's.
 */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
/**
 * A lock file with no owner written in it is one being created, unless it has been so this long
 * (locks are created filled now; an empty one is left by an older version killed while creating it).
 */
const UNFILLED_STALE_MS = 60_000;

/** A held lock: `release` removes it if it is still ours; `touch` tells others its owner is alive. */
export interface HeldLock {
  release(): void;
  touch(): void;
}

/** The lock when free (or left by a dead owner, or older than `staleMs` when that is above 0); else undefined. */
export function tryLock(path: string, staleMs: number): HeldLock | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    const content = `${process.pid} ${randomBytes(8).toString("hex")}`;
    // A lock seen taken is judged without making a file: lockWaiting asks every 5 ms.
    if (!existsSync(path) && createFilled(path, content)) return heldLock(path, content);
    const stale = staleContent(path, staleMs);
    if (stale === undefined || !takeOver(path, stale)) return undefined;
  }
  return undefined;
}

/**
 * Creates the lock file with its content in one step, false if it exists: the content is written
 * under a name of its own and linked into place. A file created empty and written after could be
 * left empty by a process killed in between, and an empty lock counts as held for
 * UNFILLED_STALE_MS (it may be one being created). On a file system without hard links (FAT,
 * some network shares) the lock is created and then written, as before.
 */
function createFilled(path: string, content: string): boolean {
  const filled = `${path}.${randomBytes(4).toString("hex")}.new`;
  writeFileSync(filled, content, { flag: "wx" });
  try {
    linkSync(filled, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return false;
    if (NO_HARD_LINKS.has(code)) return createThenWrite(path, content);
    throw error;
  } finally {
    rmSync(filled, { force: true });
  }
}

/** What linking answers on a file system that has no hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

function createThenWrite(path: string, content: string): boolean {
  try {
    writeFileSync(path, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Waits (blocking, in 5 ms steps) up to `timeoutMs` for the lock. */
export function lockWaiting(path: string, timeoutMs: number, staleMs: number): HeldLock {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const held = tryLock(path, staleMs);
    if (held) return held;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for the lock ${path}`);
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

/** Whether a live process holds the lock at `path`. */
export function isHeld(path: string, staleMs: number): boolean {
  try {
    // Not stale means read and owned: a missing file counts as stale (free).
    return staleContent(path, staleMs) === undefined;
  } catch {
    return false;
  }
}

function heldLock(path: string, content: string): HeldLock {
  return {
    release: () => {
      if (readOrUndefined(path) === content) rmSync(path, { force: true });
    },
    touch: () => {
      const now = new Date();
      if (readOrUndefined(path) === content) utimesQuietly(path, now);
    },
  };
}

/**
 * Moves a stale lock aside under a name of its own (a rename: of two processes taking over, one
 * succeeds) and checks that what it moved is the stale lock it judged: if another process had
 * taken over first and made a fresh lock, that lock is put back.
 */
function takeOver(path: string, stale: string): boolean {
  const aside = `${path}.${randomBytes(4).toString("hex")}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
  if (readOrUndefined(aside) === stale) {
    rmSync(aside, { force: true });
    return true;
  }
  try {
    linkSync(aside, path);
  } catch {
    // Someone made a new lock meanwhile: theirs stands, ours is given up.
  }
  rmSync(aside, { force: true });
  return false;
}

/** The lock's content when it is stale (owner dead, unfilled for long, or older than `staleMs`); else undefined. */
function staleContent(path: string, staleMs: number): string | undefined {
  const content = readOrUndefined(path);
  // Released between our attempt and this look: free now (an empty content takes it over).
  if (content === undefined) return "";
  const modifiedMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const age = Date.now() - modifiedMs;
  const owner = Number(content.split(" ")[0]);
  if (!(owner > 0)) return age > UNFILLED_STALE_MS ? content : undefined;
  if (!isRunning(owner)) return content;
  return staleMs > 0 && age > staleMs ? content : undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function utimesQuietly(path: string, at: Date): void {
  try {
    utimesSync(path, at, at);
  } catch {
    // A lock released meanwhile needs no touch.
  }
}
