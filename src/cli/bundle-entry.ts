// Entry of the bundled CLI (dist/cli/kgrag-cli.js): loads the commands, bundled as one CommonJS file
// beside it (kgrag-cli.cjs), through V8's code cache (src/cli/code-cache.ts). Sources run run.ts.
import { fileURLToPath } from "node:url";
import { loadBundleWithCodeCache } from "./code-cache.js";

interface CliBundle {
  startCli(): Promise<void>;
}

function isCliBundle(value: unknown): value is CliBundle {
  return (
    typeof value === "object" && value !== null && "startCli" in value && typeof value.startCli === "function"
  );
}

/**
 * One cache per command, each holding the functions its first successful run compiled: `index
 * --help` or `--version` get caches of their own, so they do not stand for the command's real work.
 */
function cacheVariant(argv: readonly string[]): string {
  const command = argv.find((arg) => !arg.startsWith("-")) ?? "kgrag";
  if (argv.some((arg) => arg === "--help" || arg === "-h")) return `${command}-help`;
  if (argv.some((arg) => arg === "--version" || arg === "-V")) return "version";
  return command;
}

const bundle = loadBundleWithCodeCache(fileURLToPath(new URL("./kgrag-cli.cjs", import.meta.url)), {
  variant: cacheVariant(process.argv.slice(2)),
});
// At exit, once the command's functions have been compiled (a no-op when the cache was used), and
// only after a success: a run that stopped early compiled little of what the command does.
process.once("exit", (code) => {
  if (code === 0) bundle.saveCache();
});
if (!isCliBundle(bundle.exports)) throw new Error("kgrag-cli.cjs does not export startCli");
await bundle.exports.startCli();
