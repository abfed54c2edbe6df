import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JobSpec, WorkerMessage } from "./job-types.js";

/** Runs one job in a child process; progress arrives through `onMessage`, the outcome as the result. */
export type JobRunner = (
  workspace: string,
  spec: JobSpec,
  onMessage: (message: WorkerMessage) => void,
) => Promise<Extract<WorkerMessage, { type: "finished" | "failed" }>>;

/**
 * The job process entry beside this file: compiled JavaScript in a build, TypeScript when the server
 * runs from sources (then the child loads it through tsx, as the parent does).
 */
function jobProcessEntry(): { file: string; execArgv: string[] } {
  const js = fileURLToPath(new URL("./job-process.js", import.meta.url));
  if (existsSync(js)) return { file: js, execArgv: [] };
  return { file: fileURLToPath(new URL("./job-process.ts", import.meta.url)), execArgv: ["--import", "tsx"] };
}

export function childProcessRunner(env: NodeJS.ProcessEnv = process.env): JobRunner {
  return (workspace, spec, onMessage) =>
    new Promise((resolve) => {
      const entry = jobProcessEntry();
      const child = fork(entry.file, [], {
        execArgv: entry.execArgv,
        env,
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let outcome: Extract<WorkerMessage, { type: "finished" | "failed" }> | undefined;
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      child.on("message", (message: WorkerMessage) => {
        if (message.type === "progress") onMessage(message);
        else outcome = message;
      });
      child.on("exit", (code) => {
        resolve(
          outcome ?? { type: "failed", message: `job process exited with code ${code}: ${stderr.trim()}` },
        );
      });
      child.send({ workspace, spec });
    });
}
