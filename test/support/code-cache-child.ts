/**
 * Child process for the code-cache tests: loads a CommonJS bundle through the code cache as the
 * bundled CLI does (src/cli/bundle-entry.ts), calls its `describe(3)`, saves the cache and prints
 * `{ state, cacheFile, result }` as JSON. A process of its own per load, since V8's in-memory compilation cache
 * would otherwise serve a second load of the same script before the on-disk cache is even read.
 * Run with `node --import tsx test/support/code-cache-child.ts BUNDLE CACHE_DIR`.
 */
import { loadBundleWithCodeCache } from "../../src/cli/code-cache.js";

const [bundle, cacheDir] = process.argv.slice(2);
if (!bundle || !cacheDir) throw new Error("usage: code-cache-child.ts BUNDLE CACHE_DIR");
const loaded = loadBundleWithCodeCache(bundle, { cacheDir, variant: "index" });
const { describe } = loaded.exports as { describe(n: number): unknown };
const result = describe(3);
loaded.saveCache();
process.stdout.write(JSON.stringify({ state: loaded.state, cacheFile: loaded.cacheFile, result }));
