/**
 * The child process that runs a workspace's jobs, one at a time: for each it opens the workspace
 * with the same library as the CLI and reports the pipeline's progress to the server over IPC. It
 * stops with the server: asked to stop, or left by a server that ended, it stops its job at the
 * next safe point (what it committed is resumed by the next run) and, left, exits. Keeping
 * indexing out of the server's process keeps queries answered while a large job runs.
 */
import { createKgrag } from "../../kgrag.js";
import { IndexInterruptedError } from "../../pipeline/interrupted.js";
import type { ProgressReporter } from "../../util/progress.js";
import { WorkspaceBusyError } from "../../workspace/lock.js";
import type { WorkerMessage, WorkerStart, WorkerStop } from "./job-types.js";
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

/** The running job's stop switch; null between jobs. */
let running: AbortController | null = null;
/** Set once the server is gone: the process exits when its job has stopped. */
let left = false;

async function run(start: WorkerStart): Promise<void> {
  const stop = new AbortController();
  running = stop;
  try {
    const kgrag = await createKgrag({ config: { workspace: start.workspace }, progress: ipcProgress() });
    try {
      await send(await runJobSpec(kgrag, start.spec, stop.signal));
    } finally {
      await kgrag.close();
    }
  } catch (error) {
    await send(outcomeOf(error));
  } finally {
    running = null;
    if (left) process.exit(0);
  }
}

function outcomeOf(error: unknown): WorkerMessage {
  if (error instanceof IndexInterruptedError) return { type: "interrupted", message: error.message };
  return {
    type: "failed",
    message: error instanceof Error ? error.message : String(error),
    ...(error instanceof WorkspaceBusyError ? { busy: true } : {}),
  };
}

function stopJob(why: string): void {
  running?.abort(new Error(why));
}

// The server sends one job at a time and waits for its outcome, or asks the running job to stop.
process.on("message", (message: WorkerStart | WorkerStop) => {
  if ("spec" in message) void run(message);
  else stopJob("the server asked the job to stop");
});
// A server that ended (killed, or quit at once) leaves no job running behind it.
process.on("disconnect", () => {
  left = true;
  if (running) stopJob("the server is gone");
  else process.exit(0);
});
// A Ctrl-C in the server's terminal reaches this process too: the job stops at a safe point, as
// the server asks it to, rather than dying mid-step.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => stopJob(`interrupted by ${signal}`));
