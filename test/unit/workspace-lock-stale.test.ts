import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceBusyError, withWorkspaceLock } from "../../src/workspace/lock.js";

/** Leaves a named lock folder last refreshed `ageMs` ago, as a holder that stopped would leave it. */
function plantLock(workspace: string, owner: { pid: number; host: string }, ageMs: number): void {
  const folder = join(workspace, "kgrag.lock");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "owner.json"), JSON.stringify({ ...owner, since: new Date().toISOString() }));
  const then = new Date(Date.now() - ageMs);
  utimesSync(folder, then, then);
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

/**
 * Locks not refreshed for over 30 s, which proper-lockfile calls stale: it removes such a folder
 * with rmdir, which the owner file inside made fail (ENOTEMPTY) before the lock took them over.
 */
describe("a stale workspace lock", () => {
  let ws: string;

  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), "kgrag-stale-lock-"));
  });

  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it("left by a process of this host killed a minute ago is taken over", async () => {
    plantLock(ws, { pid: deadPid(), host: hostname() }, 60_000);
    expect(await withWorkspaceLock(ws, async () => "ran")).toBe("ran");
    expect(existsSync(join(ws, "kgrag.lock"))).toBe(false);
  });

  it("of another host, not refreshed for a minute, is taken over", async () => {
    plantLock(ws, { pid: deadPid(), host: `${hostname()}-other` }, 60_000);
    expect(await withWorkspaceLock(ws, async () => "ran")).toBe("ran");
  });

  it("held by a live process of this host is still refused, however old", async () => {
    plantLock(ws, { pid: process.pid, host: hostname() }, 60_000);
    await expect(withWorkspaceLock(ws, async () => "ran")).rejects.toBeInstanceOf(WorkspaceBusyError);
  });
});
