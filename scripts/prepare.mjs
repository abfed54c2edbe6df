// `prepare` runs this before `npm run build`. npm runs a path or git dependency's `prepare` in its
// folder without installing that folder's devDependencies, so the build's tools (TypeScript, esbuild, Vite)
// may be missing there: say what to do instead of failing with `tsc: not found`.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BUILD_TOOLS = ["typescript", "esbuild", "vite"];
const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Found as Node finds a package: in node_modules of the folder or of any folder above it. */
function installed(name) {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", name, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** "a", "a and b", "a, b and c". */
function listed(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names.join("");
}

const missing = BUILD_TOOLS.filter((name) => !installed(name));
if (missing.length > 0) {
  process.stderr.write(
    `kgrag: cannot build ${root}: ${listed(missing)} not installed there.\n` +
      "kgrag: run `npm ci` in this clone before installing it from a path " +
      "(npm does not install a path dependency's devDependencies).\n",
  );
  process.exit(1);
}
