import { type ChildProcess, fork } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import { childEntry } from "../../util/child-entry.js";
import type { JobSpec, WorkerMessage, WorkerStop } from "./job-types.js";

export type Outcome = Extract<WorkerMessage, { type: "finished" | "failed" | "interrupted" }>;

/** Runs jobs away from the request loop; progress arrives through `onMessage`, the outcome as the result. */
export interface JobRunner {
  run(workspace: string, spec: JobSpec, onMessage: (message: WorkerMessage) => void): Promise<Outcome>;
  /**
   * Asks the workspace's running job to stop at its next safe point (an index job then ends
   * "interrupted"; a delete or re-index finishes). Nothing when no job runs.
   */
  stop(workspace: string): void;
  /** Ends the processes it started (after their job, since queues run one job at a time). */
  close(): Promise<void>;
}

/** The job process entry beside this file (see childEntry). */
const jobProcessEntry = () => childEntry(import.meta.url, "job-process");

interface Current {
  onMessage: (message: WorkerMessage) => void;
  resolve: (outcome: Outcome) => void;
}

/**
 * One child process per workspace, started with its first job and kept for the next ones (loading
 * the library costs more than most small jobs). A child that dies fails its job; the next job
 * starts a new one.
 */
export function childProcessRunner(
  env: NodeJS.ProcessEnv = process.env,
  options: {
    /** Niceness added to each child's (see ServerConfig.jobNice); 0 leaves it as the server's. */
    nice?: number;
    /** How long close() waits for a child to finish its job and exit before killing it. */
    closeGraceMs?: number;
  } = {},
): JobRunner {
  const { nice = 0, closeGraceMs = 60_000 } = options;
  const children = new Map<string, { child: ChildProcess; current: Current | null; stderr: string }>();

  const start = (workspace: string) => {
    const entry = jobProcessEntry();
    const child = fork(entry.file, [], {
      execArgv: entry.execArgv,
      env,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    if (nice > 0 && child.pid !== undefined) lowerPriority(child.pid, nice);
    const slot = { child, current: null as Current | null, stderr: "" };
    child.stderr?.on("data", (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString()).slice(-4000);
    });
    child.on("message", (message: WorkerMessage) => {
      if (message.type === "progress") {
        slot.current?.onMessage(message);
        return;
      }
      const current = slot.current;
      slot.current = null;
      current?.resolve(message);
    });
    child.on("exit", (code, signal) => {
      children.delete(workspace);
      const current = slot.current;
      slot.current = null;
      current?.resolve({
        type: "failed",
        message: `the job process stopped (${signal ?? `exit code ${code}`})`,
        detail: slot.stderr.trim(),
      });
    });
    children.set(workspace, slot);
    return slot;
  };

  return {
    run: (workspace, spec, onMessage) =>
      new Promise((resolve) => {
        const slot = children.get(workspace) ?? start(workspace);
        slot.current = { onMessage, resolve };
        slot.child.send({ workspace, spec });
      }),
    stop: (workspace) => {
      const slot = children.get(workspace);
      if (slot?.current && slot.child.connected) slot.child.send({ type: "stop" } satisfies WorkerStop);
    },
    close: async () => {
      const exits = [...children.values()].map(({ child }) => exitOrKill(child, closeGraceMs));
      for (const { child } of children.values()) if (child.connected) child.disconnect();
      await Promise.all(exits);
    },
  };
}

/**
 * Lowers the job process's CPU priority by `nice` below the server's own (19 at most), so that on
 * a busy machine queries go first. Best effort: a system that refuses it (or a child already
 * gone) leaves the job at the server's priority.
 */
function lowerPriority(pid: number, nice: number): void {
  try {
    setPriority(pid, Math.min(19, getPriority() + nice));
  } catch {
    // The job still runs, only at the server's priority.
  }
}

/** Resolves when the child has exited; kills it if it is still running after `graceMs`. */
function exitOrKill(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    kill.unref();
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
  });
}
