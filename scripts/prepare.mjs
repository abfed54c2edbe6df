// `prepare` (run by `npm ci`, and when npm installs kgrag from a path or git) builds kgrag through
// this script. npm runs a path or git dependency's `prepare` in its folder without installing that
// folder's devDependencies, so the build's tools (TypeScript, esbuild, Vite) may be missing there:
// say what to do instead of failing with `tsc: not found`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BUILD_TOOLS = ["typescript", "esbuild", "vite"];
/** What `npm run build` writes: the library, the bundled CLI and the web app. */
const BUILD_OUTPUTS = ["dist/src/index.js", "dist/cli/kgrag-cli.js", "web/dist/index.html"];
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

// `npx kgrag` inside a clone installs the clone into npx's cache, which runs its `prepare` once
// more (npm_command "exec"): the clone `npm ci` already built would be built again, holding the
// user's first command for minutes without a word.
const built = BUILD_OUTPUTS.every((file) => existsSync(join(root, file)));
if (process.env.npm_command === "exec" && built) process.exit(0);

const missing = BUILD_TOOLS.filter((name) => !installed(name));
if (missing.length > 0) {
  process.stderr.write(
    `kgrag: cannot build ${root}: ${listed(missing)} not installed there.\n` +
      "kgrag: run `npm ci` in this clone before installing it from a path " +
      "(npm does not install a path dependency's devDependencies).\n",
  );
  process.exit(1);
}

const build = spawnSync("npm", ["run", "build"], {
  cwd: root,
  stdio: "inherit",
  shell: process.platform === "win32",
});
// npm not found (a package manager other than npm ran this): without a word the install just failed.
if (build.error)
  process.stderr.write(
    `kgrag: cannot build ${root}: \`npm run build\` did not start (${build.error.message}).\n`,
  );
process.exit(build.status ?? 1);
