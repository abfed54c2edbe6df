// Bundles the CLI (and the server's job and query processes, which it spawns by a path next to it) into
// dist/cli: a command loads a handful of files instead of some two hundred modules, which is most
// of what a short CLI call spends before doing anything. Dependencies stay external, except zod,
// whose ninety-odd small modules every command would otherwise resolve one by one, and
// @opentelemetry/api (sixty-odd CommonJS files; its copies share one global registry, so a tracer
// provider registered through the application's own copy still receives the CLI's spans). The
// library entry (dist/src, from tsc) is not bundled.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";
import { bundleCompromise } from "./bundle-compromise.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// string-width too (with strip-ansi and get-east-asian-width): five ES modules every table-printing
// command (status) would otherwise resolve and load one by one.
const bundled = new Set(["zod", "@opentelemetry/api", "string-width"]);
const external = Object.keys(pkg.dependencies)
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`]);
// The test suite bundles the current sources elsewhere (`node scripts/bundle-cli.mjs DIR`).
const outdir = process.argv[2] ?? new URL("../dist/cli", import.meta.url).pathname;

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    "kgrag-cli": "src/cli/run.ts",
    // The server spawns these by a path beside the module that starts them.
    "job-process": "src/server/jobs/job-process.ts",
    "query-worker": "src/server/queries/query-worker.ts",
  },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  // Every chunk sits beside the entries, so `new URL("./job-process.js", import.meta.url)` holds.
  chunkNames: "[name]-[hash]",
  external,
  logLevel: "warning",
});

// The tokenizer's ranks as JSON beside the bundle (src/util/tokens.ts loadCounter): V8 parses JSON
// faster than it compiles gpt-tokenizer's module of the same array, which a query pays for.
const require = createRequire(import.meta.url);
mkdirSync(`${outdir}/bpe-ranks`, { recursive: true });
for (const encoding of ["o200k_base", "cl100k_base"]) {
  const ranks = require(`gpt-tokenizer/bpeRanks/${encoding}`).default;
  writeFileSync(`${outdir}/bpe-ranks/${encoding}.json`, JSON.stringify(ranks));
}

// compromise with its English model built once, here, rather than on every load (src/nlp/compromise.ts).
await bundleCompromise(outdir);
