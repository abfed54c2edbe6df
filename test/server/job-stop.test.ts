import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
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
});
