// Bundles the CLI (and the server's job and query processes, which it spawns by a path next to it) into
// dist/cli: a command loads a handful of files instead of some two hundred modules, which is most
// of what a short CLI call spends before doing anything. Dependencies stay external, except zod,
// whose ninety-odd small modules every command would otherwise resolve one by one, and
// @opentelemetry/api (sixty-odd CommonJS files; its copies share one global registry, so a tracer
// provider registered through the application's own copy still receives the CLI's spans). The
// library entry (dist/src, from tsc) is not bundled.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";
import { build } from "esbuild";
import ts from "typescript";
import { bundleCompromise } from "./bundle-compromise.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// string-width too (with strip-ansi and get-east-asian-width): five ES modules every table-printing
// command (status) would otherwise resolve and load one by one. And the OpenAI client: some 130 ES
// modules that every command calling a model loaded before its first request (about 90 ms of CPU
// against about 10 ms bundled), and p-limit with yocto-queue, two more on the way there.
// commander and proper-lockfile (with graceful-fs, retry and signal-exit) are CommonJS: loaded through
// the ES module loader's CommonJS path, file by file, they cost every command about 20 ms of CPU.
const bundled = new Set([
  "zod",
  "@opentelemetry/api",
  "string-width",
  "openai",
  "p-limit",
  "commander",
  "proper-lockfile",
]);
const external = Object.keys(pkg.dependencies)
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`]);
// The CLI's own bundle is CommonJS (see below), where an ES-module-only package cannot be required:
// those it imports statically are bundled into it.
const esModuleOnly = ["marked", "stemmer"];
const cliExternal = external.filter(
  (name) => !esModuleOnly.some((only) => name === only || name === `${only}/*`),
);
// The test suite bundles the current sources elsewhere (`node scripts/bundle-cli.mjs DIR`).
const outdir = process.argv[2] ?? new URL("../dist/cli", import.meta.url).pathname;

/**
 * zod's translated error messages (`z.locales`, some sixty languages, half of its bundled size) are
 * left out: kgrag uses none of them (English comes from its own module), and every command paid
 * for parsing them as the CLI loaded.
 */
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: "zod-locales", namespace: "without-zod-locales" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "without-zod-locales" }, () => ({
      contents: "export {};",
      loader: "js",
    }));
  },
};

/**
 * The bundled CommonJS packages `require` Node's own modules, which an ES module bundle cannot do
 * (there is no `require` in it): each such call gets a small module that imports the built-in
 * and exports it whole, as `require` would have returned it.
 */
const builtinsForBundledCommonJs = {
  name: "builtins-for-bundled-commonjs",
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) =>
      args.kind === "require-call" && isBuiltin(args.path)
        ? { path: args.path.replace(/^node:/, ""), namespace: "builtin-for-commonjs" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "builtin-for-commonjs" }, (args) => ({
      contents: `import builtin from "node:${args.path}"; module.exports = builtin;`,
      loader: "js",
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    // The server spawns these by a path beside the module that starts them.
    "job-process": "src/server/jobs/job-process.ts",
    "query-worker": "src/server/queries/query-worker.ts",
    // The offline built-ins' worker thread (src/threads/built-in-thread.ts), found the same way.
    "offline-worker": "src/threads/offline-worker.ts",
    // The HNSW files' background fold (src/storage/sqlite/background-fold.ts), spawned the same way.
    "fold-process": "src/storage/sqlite/fold-process.ts",
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
  plugins: [withoutZodLocales, builtinsForBundledCommonJs],
});

// The CLI itself: its commands in one CommonJS file (kgrag-cli.cjs), which the entry (kgrag-cli.js,
// src/cli/bundle-entry.ts, Node's built-ins only) compiles with V8's code cache
// (src/cli/code-cache.ts): Node 20 caches no ES module's compilation, and parsing and compiling the
// commands' modules was a third of a command's start-up. `import.meta.url` becomes the file's own
// URL (its chunks' neighbours, bpe-ranks/ and compromise/, sit beside it as before), the file is strict
// as the ES modules were, and `import()` of a package (unpdf, mammoth, LangChain's messages, each with a
// CommonJS build) becomes `require()`: on Node 20 a script compiled from a code cache loses its
// dynamic-import callback ("A dynamic import callback was not specified"), and the callback that
// would serve it, vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER, prints an experimental warning.
await build({
  entryPoints: ["src/cli/start.ts"],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  outfile: `${outdir}/kgrag-cli.cjs`,
  external: cliExternal,
  logLevel: "warning",
  plugins: [withoutZodLocales],
  supported: { "dynamic-import": false },
  charset: "ascii",
  define: { "import.meta.url": "__kgragBundleUrl" },
  banner: {
    js: '"use strict";\nconst __kgragBundleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
});
// ASCII throughout, so the entry reads it as a one-byte string (latin1, about 4 ms for its two
// megabytes, where decoding UTF-8 took about 12) and V8 scans half the bytes of a two-byte string.
writeAscii(`${outdir}/kgrag-cli.cjs`);
// The bundle's hash, which names its code caches, computed once here rather than at every start.
const commands = readFileSync(`${outdir}/kgrag-cli.cjs`);
writeFileSync(`${outdir}/kgrag-cli.cjs.sha256`, `${createHash("sha256").update(commands).digest("hex")}\n`);
await build({
  entryPoints: { "kgrag-cli": "src/cli/bundle-entry.ts" },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  logLevel: "warning",
});

// The tokenizer's ranks as ready-made tables beside the bundle (src/util/tokens.ts loadCounter): read
// as they are, where gpt-tokenizer's own module builds a map of all 200,000 ranks on every load. The
// table's builder is the reader's own module (src/util/bpe-table.ts), compiled here for the purpose.
const require = createRequire(import.meta.url);
// Each table's pre-tokenizer pattern is saved beside it (`.split`), so a run builds only its own.
const { buildBpeTable, splitPatternText } = await importTypeScript(
  new URL("../src/util/bpe-table.ts", import.meta.url).pathname,
  outdir,
);
const splitPatterns = require("gpt-tokenizer/encodingParams/constants");
mkdirSync(`${outdir}/bpe-ranks`, { recursive: true });
for (const [encoding, pattern] of [
  ["o200k_base", splitPatterns.O200K_TOKEN_SPLIT_REGEX],
  ["cl100k_base", splitPatterns.CL100K_TOKEN_SPLIT_REGEX],
]) {
  const ranks = require(`gpt-tokenizer/bpeRanks/${encoding}`).default;
  writeFileSync(`${outdir}/bpe-ranks/${encoding}.bpe`, buildBpeTable(ranks));
  writeFileSync(`${outdir}/bpe-ranks/${encoding}.split`, splitPatternText(pattern));
}

// compromise with its English model built once, here, rather than on every load (src/nlp/compromise.ts).
await bundleCompromise(outdir);

/**
 * The bundle rewritten in ASCII ({@link escapeNonAscii}), unless a tagged template holds characters
 * beyond it: esbuild keeps those as written, since a tag reads the raw text, which an escape would
 * change. Then the file stays UTF-8, which the entry reads as such. The result must still parse.
 */
function writeAscii(file) {
  const text = readFileSync(file, "utf8");
  const tagged = nonAsciiTaggedTemplate(text);
  if (tagged) {
    console.warn(`${file} stays UTF-8: a tagged template holds non-ASCII text (${tagged})`);
    return;
  }
  const ascii = escapeNonAscii(text);
  new Script(ascii, { filename: file });
  writeFileSync(file, ascii);
}

/** The first tagged template whose text goes beyond ASCII, if any (by TypeScript's parser). */
function nonAsciiTaggedTemplate(text) {
  const source = ts.createSourceFile("bundle.cjs", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  let found;
  const visit = (node) => {
    if (found) return;
    if (ts.isTaggedTemplateExpression(node)) {
      const template = text.slice(node.template.getStart(source), node.template.end);
      if (/[^\x00-\x7f]/.test(template)) found = template.slice(0, 60);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * esbuild's `charset: "ascii"` escapes strings and untagged templates but leaves regular expression
 * literals, comments and tagged templates as written: their characters beyond ASCII become \\uXXXX escapes (two, a surrogate
 * pair, beyond the BMP), which match the same in a pattern with or without the u flag and change
 * nothing in a comment. A character escaped by a backslash of its own (`\\…`, an identity escape)
 * would turn into a backslash and letters, so the build refuses it.
 */
function escapeNonAscii(text) {
  return text.replace(/(\\*)([^\x00-\x7f])/gu, (_, backslashes, char) => {
    if (backslashes.length % 2 === 1) {
      const at = text.indexOf(backslashes + char);
      throw new Error(`An escaped non-ASCII character in the CLI bundle: ${text.slice(at - 40, at + 10)}`);
    }
    let escaped = "";
    for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return backslashes + escaped;
  });
}

/** A TypeScript module of the sources, bundled to a file in `dir` for the time of an import. */
async function importTypeScript(entry, dir) {
  const outfile = join(dir, `.build-${basename(entry, ".ts")}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "warning",
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}
