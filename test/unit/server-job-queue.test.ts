import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue } from "../../src/server/jobs/job-queue.js";
import type { JobRunner, Outcome } from "../../src/server/jobs/job-runner.js";
import type { JobSpec, WorkerMessage } from "../../src/server/jobs/job-types.js";

/** Runs no process: each job waits until the test finishes it, and can report steps meanwhile. */
class ScriptedRunner implements JobRunner {
  readonly started: JobSpec[] = [];
  readonly stopped: string[] = [];
  private current?: { onMessage: (m: WorkerMessage) => void; resolve: (o: Outcome) => void };

  run(_workspace: string, spec: JobSpec, onMessage: (m: WorkerMessage) => void): Promise<Outcome> {
    this.started.push(spec);
    return new Promise((resolve) => {
      this.current = { onMessage, resolve };
    });
  }

  report(stage: string, done: number, total: number): void {
    this.current?.onMessage({ type: "progress", stage, done, total });
  }

  finish(): void {
    this.current?.resolve({ type: "finished", documents: [], errors: [], message: "done" });
  }

  /** As the job process does: an index job stops at its next safe point, interrupted. */
  stop(workspace: string): void {
    this.stopped.push(workspace);
    this.current?.resolve({ type: "interrupted", message: "Indexing interrupted: 0 of 1 documents done." });
  }

  async close(): Promise<void> {}
}

let folder: string;
let runner: ScriptedRunner;
let queue: JobQueue;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "kgrag-job-queue-"));
  runner = new ScriptedRunner();
  queue = new JobQueue("ws", folder, runner, 20, 0);
});
afterEach(async () => {
  // Closed first, so no queued job starts once the running one is finished.
  const closing = queue.close();
  runner.finish();
  await closing;
  rmSync(folder, { recursive: true, force: true });
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the server's job queue", () => {
  it("stops its running job when it closes, and runs it again on the next start", async () => {
    const spec: JobSpec = {
      kind: "index",
      files: [],
      texts: [{ id: "porto", title: "Porto", text: "Porto." }],
    };
    const job = queue.add(spec, ["porto"]);
    await tick();
    runner.report("extract", 1, 3);
    await queue.close();
    // Stopped with the server, not left to finish unseen: what it says is what happened.
    expect(runner.stopped).toEqual(["ws"]);
    expect(queue.get(job.id)).toMatchObject({
      status: "interrupted",
      message: "the server stopped during this job; it was queued again",
    });
    const restarted = new JobQueue("ws", folder, runner, 20, 0);
    const again = restarted.list().find((j) => j.id !== job.id);
    expect(again).toMatchObject({ kind: "index", documents: ["porto"] });
    await tick();
    expect(runner.started.at(-1)).toEqual(spec);
    // This time the job finishes before the server stops.
    runner.finish();
    await restarted.idle();
    await restarted.close();
    expect(restarted.get(again?.id ?? "")).toMatchObject({ status: "done" });
    // Queued again once only: a third start finds nothing left to run.
    const third = new JobQueue("ws", folder, runner, 20, 0);
    expect(third.list().filter((j) => j.status === "queued" || j.status === "running")).toEqual([]);
    await third.close();
  });

  it("answers a delete or re-index asked again while the first is still queued with that job", async () => {
    // Runs first and holds the queue, so the jobs below stay queued.
    queue.add({ kind: "index", files: [], texts: [] }, ["other"]);
    const first = queue.addOnce({ kind: "delete", docIds: ["lisbon"] }, ["lisbon"]);
    expect(queue.addOnce({ kind: "delete", docIds: ["lisbon"] }, ["lisbon"]).id).toBe(first.id);
    const reindex = queue.addOnce({ kind: "reindex", docId: "porto" }, ["porto"]);
    expect(queue.addOnce({ kind: "reindex", docId: "porto" }, ["porto"]).id).toBe(reindex.id);
    expect(queue.list()).toHaveLength(3);
  });

  it("queues another when the first has started, or when a later job touches the document", async () => {
    const running = queue.addOnce({ kind: "reindex", docId: "porto" }, ["porto"]);
    await tick();
    expect(queue.get(running.id)?.status).toBe("running");
    // A running re-index read the file already: an edit since needs a job of its own.
    expect(queue.addOnce({ kind: "reindex", docId: "porto" }, ["porto"]).id).not.toBe(running.id);
    const deleting = queue.addOnce({ kind: "delete", docIds: ["lisbon"] }, ["lisbon"]);
    queue.add({ kind: "index", files: [], texts: [] }, ["lisbon"]);
    // Merged into the first delete, this one would run before the upload that brings Lisbon back.
    expect(queue.addOnce({ kind: "delete", docIds: ["lisbon"] }, ["lisbon"]).id).not.toBe(deleting.id);
  });

  it("counts none of a re-index's delete steps as progress, only its index steps", async () => {
    const job = queue.addOnce({ kind: "reindex", docId: "porto" }, ["porto"]);
    await tick();
    // The delete settles the graph first: embeddings and reports of the documents left.
    runner.report("embed entities", 3, 3);
    runner.report("community reports", 2, 2);
    expect(queue.get(job.id)).toMatchObject({ stage: "community reports", progress: 0 });
    runner.report("register", 1, 1);
    expect(queue.get(job.id)?.progress).toBeCloseTo(0.05);
    runner.report("extract", 1, 2);
    expect(queue.get(job.id)?.progress).toBeGreaterThan(0.05);
    expect(queue.get(job.id)?.progress).toBeLessThan(0.5);
  });
});
