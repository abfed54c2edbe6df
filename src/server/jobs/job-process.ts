/**
 * The child process that runs a workspace's jobs, one at a time: for each it opens the workspace
 * with the same library as the CLI and reports the pipeline's progress to the server over IPC. It
 * ends when the server disconnects. Keeping indexing out of the server's process keeps queries
 * answered while a large job runs.
 */
import { createKgrag } from "../../kgrag.js";
import type { ProgressReporter } from "../../util/progress.js";
import { WorkspaceBusyError } from "../../workspace/lock.js";
import type { WorkerMessage, WorkerStart } from "./job-types.js";
import { runJobSpec } from "./job-work.js";

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, () => resolve());
  });
}

/** Pipeline progress as job stage, done and total; advances are sent at most every 200 ms. */
function ipcProgress(): ProgressReporter {
  const counts = new Map<string, { done: number; total: number }>();
  let lastSent = 0;
  const report = (stage: string, force: boolean) => {
    const now = Date.now();
    if (!force && now - lastSent < 200) return;
    lastSent = now;
    const c = counts.get(stage) ?? { done: 0, total: 0 };
    void send({ type: "progress", stage, done: c.done, total: c.total });
  };
  return {
    start(step, total) {
      counts.set(step, { done: 0, total });
      report(step, true);
    },
    advance(step, by = 1) {
      const c = counts.get(step);
      if (c) c.done += by;
      report(step, false);
    },
    finish(step) {
      const c = counts.get(step);
      if (c) c.done = c.total;
      report(step, true);
    },
    info(message) {
      void send({ type: "progress", stage: "info", done: 0, total: 0, message });
    },
  };
}

async function run(start: WorkerStart): Promise<void> {
  try {
    const kgrag = await createKgrag({ config: { workspace: start.workspace }, progress: ipcProgress() });
    try {
      await send(await runJobSpec(kgrag, start.spec));
    } finally {
      await kgrag.close();
    }
  } catch (error) {
    await send({
      type: "failed",
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof WorkspaceBusyError ? { busy: true } : {}),
    });
  }
}

// The server sends one job at a time and waits for its outcome; disconnecting ends the process.
process.on("message", (start: WorkerStart) => {
  void run(start);
});
process.on("disconnect", () => process.exit(0));
