import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { testBundleEntry } from "./test-bundle-entry.js";

/**
 * A child process's entry module beside the module that starts it (`moduleUrl`): compiled
 * JavaScript in a build (dist/src, or the bundled CLI's entry, which sits beside its chunks), the
 * test suite's bundle entry of the same name, else the TypeScript source, which the child loads
 * through tsx (running from sources).
 */
export function childEntry(
  moduleUrl: string,
  name: "job-process" | "query-worker" | "fold-process",
): { file: string; execArgv: string[] } {
  const js = fileURLToPath(new URL(`./${name}.js`, moduleUrl));
  if (existsSync(js)) return { file: js, execArgv: [] };
  const bundled = testBundleEntry(name);
  if (bundled) return { file: bundled, execArgv: [] };
  return { file: fileURLToPath(new URL(`./${name}.ts`, moduleUrl)), execArgv: ["--import", "tsx"] };
}
