// compromise, ready-built for the bundled CLI (src/nlp/compromise.ts loads it). compromise builds its
// English model as it loads: it unpacks its lexicon, conjugates and inflects every word in it, then
// deep-merges the result into its world, which costs about three quarters of its load and every
// query pays for it (the question is tagged). That model is the same on every load, so it is built
// once here, with the package's own build, and saved as JSON beside a build of compromise from its
// sources whose pre-tagger model is left empty; loading restores the saved model into it.
// Usage: node scripts/bundle-compromise.mjs DIR (bundle-cli.mjs calls bundleCompromise).
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const require = createRequire(import.meta.url);

/** The module that builds the pre-tagger's model (lexicon and all) as it is evaluated. */
const PRE_TAGGER_MODEL = /[\\/]2-two[\\/]preTagger[\\/]model[\\/]index\.js$/;

export async function bundleCompromise(outdir) {
  const dir = join(outdir, "compromise");
  mkdirSync(dir, { recursive: true });
  // The package exports no package.json; its CommonJS build sits two folders below the root.
  const packageDir = dirname(dirname(dirname(require.resolve("compromise/two"))));
  await build({
    entryPoints: [join(packageDir, "src", "two.js")],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    minify: true,
    outfile: join(dir, "two.cjs"),
    logLevel: "warning",
    plugins: [
      {
        name: "empty-pre-tagger-model",
        setup(builder) {
          builder.onLoad({ filter: PRE_TAGGER_MODEL }, () => ({
            contents: "export default {}",
            loader: "js",
          }));
        },
      },
    ],
  });
  writeFileSync(join(dir, "model.json"), JSON.stringify(savedModel(require("compromise/two").model())));
}

/**
 * The model as JSON, its regular expressions (suffix and number patterns) listed apart by path:
 * restoring a few dozen of them is cheaper than a JSON reviver called on every value.
 */
function savedModel(model) {
  const regexps = [];
  const plain = JSON.parse(
    JSON.stringify(model, (_key, value) => {
      if (value instanceof RegExp) return { regexp: [value.source, value.flags] };
      return value;
    }),
  );
  collectRegexps(plain, [], regexps);
  return { model: plain, regexps };
}

function collectRegexps(value, path, into) {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value.regexp) && Object.keys(value).length === 1) {
    into.push({ path, source: value.regexp[0], flags: value.regexp[1] });
    return;
  }
  for (const [key, child] of Object.entries(value)) collectRegexps(child, [...path, key], into);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outdir = process.argv[2];
  if (!outdir) throw new Error("Usage: node scripts/bundle-compromise.mjs DIR");
  await bundleCompromise(outdir);
}
