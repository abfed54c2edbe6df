import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: the CLI runs from its sources there. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Names the CLI bundled from the current sources for this run (test/support/cli-bundle-setup.ts). */
export const CLI_BUNDLE_ENV = "KGRAG_TEST_CLI_BUNDLE";

/**
 * Node's arguments for `kgrag <args>`: the bundle the global setup built from the sources, or the
 * sources through tsx when there is none (a run without that setup).
 */
export function cliArgs(args: string[]): string[] {
  const bundle = process.env[CLI_BUNDLE_ENV];
  return bundle ? [bundle, ...args] : ["--import", "tsx", "src/cli/run.ts", ...args];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliChild {
  process: ChildProcess;
  /** Settles when the process has exited, however it ended. */
  done: Promise<CliResult>;
}

/**
 * Environment for a child CLI: nothing inherited that could switch kgrag to a real model or
 * another workspace, only what the test passes.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "SystemRoot"];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Starts `kgrag <args>` as a real process, for tests that kill it or run two at once. */
export function startCli(args: string[], env: Record<string, string> = {}): CliChild {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { process: child, done };
}

/** Runs `kgrag <args>` to the end. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/** The JSON object a `--json` command printed (the whole of stdout). */
export function jsonOutput<T>(result: Pick<CliResult, "code" | "stdout" | "stderr">): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `expected JSON on stdout (exit ${result.code}):\n${result.stdout}\n--- stderr:\n${result.stderr}`,
    );
  }
}
