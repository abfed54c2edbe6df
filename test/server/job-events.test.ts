import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import { pollAsOnALoadedMachine } from "../support/browser-waits.js";
import {
  heldJobRunner,
  json,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

/** GET /api/v1/jobs/:id/events over real HTTP: each state of a job sent once. */
pollAsOnALoadedMachine();
const dirs: string[] = [];
let running: Running;
let held: ReturnType<typeof heldJobRunner>;

beforeAll(async () => {
  const root = await tempDir("job-events");
  dirs.push(root);
  await offlineWorkspace(join(root, "ws"), []);
  held = heldJobRunner();
  running = await startServer({ workspaces: [join(root, "ws")], runner: held.runner });
}, 60_000);

afterAll(async () => {
  held?.release();
  await running?.stop();
  await removeAll(dirs);
});

async function addJob(): Promise<Job> {
  const response = await fetch(`${running.url}/api/v1/documents/texts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ documents: [{ id: "note", text: "Harbour Light is a lighthouse in Vessen." }] }),
  });
  expect(response.status).toBe(202);
  return ((await json(response)) as { job: Job }).job;
}

describe("job progress events", () => {
  it("sends a progress event only when the job changed, and the finished job once, as `end`", async () => {
    const job = await addJob();
    await expect
      .poll(async () => ((await json(await fetch(`${running.url}/api/v1/jobs/${job.id}`))) as Job).status)
      .toBe("running");
    // The response is there once the first event is written, and the subscription is made with it.
    const stream = await fetch(`${running.url}/api/v1/jobs/${job.id}/events`);
    // The job process reports each count twice, as a stage repeating its last count does.
    for (const done of [1, 1, 2, 2]) held.report({ type: "progress", stage: "extract", done, total: 2 });
    held.release();
    const events = await readEvents(stream);
    const payloads = events.map((e) => JSON.stringify(e.data));
    const repeated = payloads.filter((payload, i) => i > 0 && payload === payloads[i - 1]);
    expect(repeated).toEqual([]);
    expect(events.map((e) => [e.event, (e.data as Job).stage, (e.data as Job).done])).toEqual([
      ["progress", "starting", 0],
      ["progress", "extract", 1],
      ["progress", "extract", 2],
      ["end", "done", 2],
    ]);
  }, 60_000);

  it("sends a finished job once, as `end`", async () => {
    const job = await addJob();
    held.release();
    await running.server.context.registry.all[0]?.jobs.idle();
    const events = await readEvents(await fetch(`${running.url}/api/v1/jobs/${job.id}/events`));
    expect(events.map((e) => e.event)).toEqual(["end"]);
    expect(events.map((e) => (e.data as Job).status)).toEqual(["done"]);
  }, 60_000);
});
