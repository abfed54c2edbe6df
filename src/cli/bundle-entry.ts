// Entry of the bundled CLI (dist/cli/kgrag-cli.js): loads the commands, bundled as one CommonJS file
// beside it (kgrag-cli.cjs), through V8's code cache (src/cli/code-cache.ts). Sources run run.ts.
import { fileURLToPath } from "node:url";
import { cacheVariantOf, loadBundleWithCodeCache } from "./code-cache.js";

interface CliBundle {
  startCli(): Promise<void>;
}

function isCliBundle(value: unknown): value is CliBundle {
  return (
    typeof value === "object" && value !== null && "startCli" in value && typeof value.startCli === "function"
  );
}

const bundle = loadBundleWithCodeCache(fileURLToPath(new URL("./kgrag-cli.cjs", import.meta.url)), {
  variant: cacheVariantOf(process.argv.slice(2)),
});
// At exit, once the command's functions have been compiled (a no-op when the cache was used), and
// only after a success: a run that stopped early compiled little of what the command does.
process.once("exit", (code) => {
  if (code === 0) bundle.saveCache();
});
if (!isCliBundle(bundle.exports)) throw new Error("kgrag-cli.cjs does not export startCli");
await bundle.exports.startCli();
