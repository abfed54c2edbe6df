import { vi } from "vitest";
import { main } from "../../src/cli/main.js";

export interface InProcessResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs `kgrag <args>` in this process (fast: no tsx start-up) and returns what it wrote and its exit
 * code. `env` is set in process.env for the call only (the CLI reads its settings from there).
 */
export async function runMain(args: string[], env: Record<string, string> = {}): Promise<InProcessResult> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  process.exitCode = 0;
  try {
    await main(["node", "kgrag", ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
    if (Object.keys(env).length > 0) vi.unstubAllEnvs();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stdout, stderr, code };
}
