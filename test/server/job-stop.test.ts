import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import { withWorkspaceLock } from "../../src/workspace/lock.js";
import { json, offlineWorkspace, removeAll, startServer, tempDir } from "../support/server.js";

const dirs: string[] = [];
afterAll(() => removeAll(dirs));

/** Many passages, so the job is still extracting when the server stops. */
function longText(): string {
  const names = ["Orrin Vale", "Talv Mirel", "Ilse Marrow", "Cato Brisk", "Wren Aldous", "Pellwick"];
  return Array.from(
    { length: 4000 },
    (_, i) => `${names[i % names.length]} met ${names[(i * 7 + 1) % names.length]} at mill number ${i}.`,
  ).join(" ");
}

describe("kgrag serve: stopping during a job", () => {
  it("stops the job process's index job with the server, interrupted, and resumes it on the next start", async () => {
    const dir = await tempDir("job-stop");
    dirs.push(dir);
    await offlineWorkspace(dir, []);
    const first = await startServer({ workspaces: [dir] });
    let id = "";
    try {
      const response = await fetch(`${first.url}/api/v1/documents/texts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ documents: [{ id: "mills", title: "Mills", text: longText() }] }),
      });
      id = ((await response.json()) as { job: Job }).job.id;
      let job: Job | undefined;
      for (let i = 0; i < 600 && job?.stage !== "extract"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        job = (await json(await fetch(`${first.url}/api/v1/jobs/${id}`))) as unknown as Job;
      }
      expect(job).toMatchObject({ status: "running", stage: "extract" });
    } finally {
      await first.stop();
    }
    // Stopped with the server at a safe point, not finished unseen by a process left behind.
    const saved = JSON.parse(readFileSync(join(dir, "server", "jobs.json"), "utf8")) as Job[];
    expect(saved.find((j) => j.id === id)).toMatchObject({
      status: "interrupted",
      message: "the server stopped during this job; it was queued again",
    });

    const second = await startServer({ workspaces: [dir] });
    try {
      let again: Job | undefined;
      for (let i = 0; i < 1200 && again?.status !== "done" && again?.status !== "failed"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const jobs = (await json(await fetch(`${second.url}/api/v1/jobs`))).items as Job[];
        again = jobs.find((j) => j.id !== id);
      }
      expect(again).toMatchObject({
        status: "done",
        message: "1 document(s) indexed (1 resumed), 0 unchanged, 0 error(s)",
      });
    } finally {
      await second.stop();
    }
  }, 180_000);

  it("says a job waits for the workspace lock while another writer holds it, from the start", async () => {
    const dir = await tempDir("job-wait");
    dirs.push(dir);
    await offlineWorkspace(dir, []);
    const running = await startServer({ workspaces: [dir] });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Another writer (a `kgrag index` beside the server): the workspace lock and a write transaction.
    const writer = new Database(join(dir, "kgrag.sqlite"));
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = withWorkspaceLock(dir, async () => {
      writer.exec("BEGIN IMMEDIATE");
      locked();
      await held;
      writer.exec("ROLLBACK");
    });
    try {
      await lockTaken;
      const response = await fetch(`${running.url}/api/v1/documents/texts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ documents: [{ id: "wait", text: "Nera Quill waited at Doverhollow." }] }),
      });
      const { id } = ((await response.json()) as { job: Job }).job;
      let job: Job | undefined;
      for (let i = 0; i < 1200 && job?.stage !== "waiting"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        job = (await json(await fetch(`${running.url}/api/v1/jobs/${id}`))) as unknown as Job;
      }
      expect(job).toMatchObject({
        status: "running",
        stage: "waiting",
        message: expect.stringMatching(
          /^waiting for the workspace lock, held by another writer: .* is being written by /,
        ),
      });
      release();
      await holding;
      await running.server.context.registry.all[0]!.jobs.idle();
      expect(await json(await fetch(`${running.url}/api/v1/jobs/${id}`))).toMatchObject({ status: "done" });
    } finally {
      release();
      await holding;
      writer.close();
      await running.stop();
    }
  }, 120_000);
});
