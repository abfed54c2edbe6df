import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { CLI_BUNDLE_ENV, REPO_ROOT } from "./cli-child.js";

const exec = promisify(execFile);

/**
 * Vitest global setup: bundles the CLI from the current sources, as `npm run build` does for
 * dist/cli (scripts/bundle-cli.mjs), into a folder of this run, and hands it to the workers. A CLI
 * the tests start as a process (test/support/cli-child.ts) then loads a few files instead of
 * compiling some two hundred TypeScript modules through tsx, about a second less per process.
 * Rebuilt when watch mode reruns tests, so a test never runs a CLI older than the sources.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  // Each vitest project runs this setup: the first one builds for all of them.
  if (process.env[CLI_BUNDLE_ENV]) return undefined;
  // Inside node_modules, so the bundle's external packages and the package folder resolve from it.
  const parent = join(REPO_ROOT, "node_modules", ".cache", "kgrag-test-cli");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, "run-"));
  const build = () =>
    exec(process.execPath, [join(REPO_ROOT, "scripts", "bundle-cli.mjs"), dir], { cwd: REPO_ROOT });
  await build();
  process.env[CLI_BUNDLE_ENV] = join(dir, "kgrag-cli.js");
  project.onTestsRerun(async () => {
    await build();
  });
  return () => rmSync(dir, { recursive: true, force: true });
}
