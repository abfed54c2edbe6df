import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JobQueue } from "../../src/server/jobs/job-queue.js";
import type { JobRunner } from "../../src/server/jobs/job-runner.js";
import type { Job } from "../../src/server/jobs/job-types.js";
import { withWorkspaceLock } from "../../src/workspace/lock.js";

const root = mkdtempSync(join(tmpdir(), "kgrag-job-busy-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BUSY = "Workspace /w is being written by another kgrag process (pid 4242 on host, since then).";

/** A runner whose first `busyRuns` runs meet another process's writer lock. */
function runnerBusyFor(busyRuns: number): JobRunner & { calls: number } {
  const runner = {
    calls: 0,
    run: async () => {
      runner.calls += 1;
      if (runner.calls <= busyRuns) return { type: "failed" as const, message: BUSY, busy: true };
      return { type: "finished" as const, documents: ["d1"], errors: [], message: "1 document(s) deleted" };
    },
    stop: () => {},
    close: async () => {},
  };
  return runner;
}

async function ended(queue: JobQueue, id: string): Promise<Job> {
  await queue.idle();
  return queue.get(id) as Job;
}

describe("kgrag serve: a job meeting another writer", () => {
  it("waits for the workspace's writer lock and runs once it is free, saying what it waits for", async () => {
    const runner = runnerBusyFor(2);
    const queue = new JobQueue(join(root, "ws-a"), join(root, "ws-a", "server"), runner, 10, 30_000);
    const stages: string[] = [];
    const job = queue.add({ kind: "delete", docIds: ["d1"] }, ["d1"]);
    queue.subscribe(job.id, (update) => stages.push(`${update.stage}: ${update.message ?? ""}`));
    expect(await ended(queue, job.id)).toMatchObject({ status: "done", documents: ["d1"] });
    expect(runner.calls).toBe(3);
    expect(
      stages.some(
        (s) =>
          s.startsWith("waiting: waiting for the workspace lock, held by another writer") &&
          s.includes("pid 4242"),
      ),
    ).toBe(true);
  });

  it("says it waits for the lock another process holds before starting a job process", async () => {
    const workspace = join(root, "ws-held");
    const runner = runnerBusyFor(0);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = withWorkspaceLock(workspace, async () => {
      locked();
      await held;
    });
    await lockTaken;
    const queue = new JobQueue(workspace, join(workspace, "server"), runner, 10, 30_000);
    const job = queue.add({ kind: "delete", docIds: ["d1"] }, ["d1"]);
    const waiting = new Promise<Job>((resolve) =>
      queue.subscribe(job.id, (update) => {
        if (update.stage === "waiting") resolve({ ...update });
      }),
    );
    expect(await waiting).toMatchObject({
      status: "running",
      message: expect.stringMatching(
        /^waiting for the workspace lock, held by another writer: .* is being written by /,
      ),
    });
    // No job process was started only to meet the lock.
    expect(runner.calls).toBe(0);
    release();
    await holding;
    expect(await ended(queue, job.id)).toMatchObject({ status: "done" });
    expect(runner.calls).toBe(1);
  });

  it("fails with the lock's message once the wait is over, and fails other errors at once", async () => {
    const busy = runnerBusyFor(Number.POSITIVE_INFINITY);
    const impatient = new JobQueue(join(root, "ws-b"), join(root, "ws-b", "server"), busy, 10, 0);
    const job = impatient.add({ kind: "delete", docIds: ["d1"] }, ["d1"]);
    expect(await ended(impatient, job.id)).toMatchObject({ status: "failed", message: BUSY });
    expect(busy.calls).toBe(1);
    let calls = 0;
    const broken: JobRunner = {
      run: async () => {
        calls += 1;
        return { type: "failed", message: "disk full" };
      },
      stop: () => {},
      close: async () => {},
    };
    const queue = new JobQueue(join(root, "ws-c"), join(root, "ws-c", "server"), broken, 10, 30_000);
    const other = queue.add({ kind: "delete", docIds: ["d1"] }, ["d1"]);
    expect(await ended(queue, other.id)).toMatchObject({ status: "failed", message: "disk full" });
    expect(calls).toBe(1);
  });
});
