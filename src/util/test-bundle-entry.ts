import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A hook for the test suite only. When the server runs from its TypeScript sources there, the suite
 * has bundled the CLI from those same sources for the run (test/support/cli-bundle-setup.ts) and
 * names it in KGRAG_TEST_CLI_BUNDLE: a job or query process then starts from that bundle's entry
 * of the same name instead of compiling the sources again through tsx, a second or more each.
 */
export function testBundleEntry(
  name: "job-process" | "query-worker" | "offline-worker" | "fold-process",
): string | undefined {
  const cli = process.env.KGRAG_TEST_CLI_BUNDLE;
  if (!cli) return undefined;
  const file = join(dirname(cli), `${name}.js`);
  return existsSync(file) ? file : undefined;
}
