import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-child.js";

/**
 * scripts/prepare.mjs, which `prepare` runs to build: in a copy of the clone without node_modules
 * (as npm leaves a path dependency) it must say what to do instead of `tsc: not found`, and under
 * `npx kgrag` in a built clone it must not build again.
 */
let clone: string;

function hasNodeModulesAbove(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules"))) return true;
    if (dirname(at) === at) return false;
  }
}

function runPrepareCheck() {
  return spawnSync(process.execPath, [join("scripts", "prepare.mjs")], { cwd: clone, encoding: "utf8" });
}

/** The `prepare` script of package.json as npm runs it (a shell), `npm_command` set as npm sets it. */
function runPrepareAsNpm(npmCommand: string) {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  return spawnSync(pkg.scripts.prepare, {
    cwd: clone,
    encoding: "utf8",
    shell: true,
    env: { ...process.env, npm_command: npmCommand },
  });
}

const BUILT_MARKER = "build-ran";

/** The copy's package.json builds by writing a marker file, so a test sees whether it built. */
function fakeBuildScript(): void {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  pkg.scripts.build = `node -e "require('fs').writeFileSync('${BUILT_MARKER}', '')"`;
  writeFileSync(join(clone, "package.json"), JSON.stringify(pkg));
}

function fakeBuildOutputs(): void {
  for (const file of ["dist/src/index.js", "dist/cli/kgrag-cli.js", "web/dist/index.html"]) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    writeFileSync(join(clone, file), "");
  }
}

function fakeBuildTools(): void {
  for (const name of ["typescript", "esbuild", "vite"]) fakePackage(name);
}

function fakePackage(name: string): void {
  mkdirSync(join(clone, "node_modules", name), { recursive: true });
  writeFileSync(join(clone, "node_modules", name, "package.json"), JSON.stringify({ name }));
}

beforeEach(() => {
  clone = join(mkdtempSync(join(tmpdir(), "kgrag-prepare-")), "kgrag");
  mkdirSync(join(clone, "scripts"), { recursive: true });
  copyFileSync(join(REPO_ROOT, "scripts", "prepare.mjs"), join(clone, "scripts", "prepare.mjs"));
  copyFileSync(join(REPO_ROOT, "package.json"), join(clone, "package.json"));
});
afterEach(() => {
  rmSync(dirname(clone), { recursive: true, force: true });
});

describe("prepare in a clone", () => {
  it("runs the check, then the build", () => {
    fakeBuildScript();
    fakeBuildTools();
    const result = runPrepareAsNpm("ci");
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(clone, BUILT_MARKER))).toBe(true);
  });

  it("without its devDependencies: exits non-zero saying to run npm ci in the clone", () => {
    expect(hasNodeModulesAbove(clone)).toBe(false);
    const result = runPrepareCheck();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      "kgrag: run `npm ci` in this clone before installing it from a path " +
        "(npm does not install a path dependency's devDependencies)",
    );
    expect(result.stderr).toMatch(/typescript, esbuild and vite not installed/);
  });

  it("names only what is missing, and passes once the build tools are installed", () => {
    fakeBuildScript();
    fakePackage("typescript");
    fakePackage("esbuild");
    const half = runPrepareCheck();
    expect(half.status).not.toBe(0);
    expect(half.stderr).toMatch(/: vite not installed/);
    fakePackage("vite");
    const ready = runPrepareCheck();
    expect(ready.status, ready.stderr).toBe(0);
    expect(ready.stderr).toBe("");
    expect(existsSync(join(clone, BUILT_MARKER))).toBe(true);
  });
});

describe("prepare when the build cannot run", () => {
  it("exits non-zero with the build's status", () => {
    fakeBuildTools();
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
    pkg.scripts.build = `node -e "process.exit(3)"`;
    writeFileSync(join(clone, "package.json"), JSON.stringify(pkg));
    expect(runPrepareCheck().status).toBe(3);
  });

  it("without npm on the PATH: exits non-zero saying the build did not start", () => {
    fakeBuildTools();
    const result = spawnSync(process.execPath, [join("scripts", "prepare.mjs")], {
      cwd: clone,
      encoding: "utf8",
      env: { ...process.env, PATH: join(clone, "no-such-bin") },
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("`npm run build` did not start");
  });
});

describe("prepare under `npx kgrag` in a clone (npx installs the clone into its cache)", () => {
  it("does not build a clone that is already built", () => {
    fakeBuildScript();
    fakeBuildTools();
    fakeBuildOutputs();
    const result = runPrepareAsNpm("exec");
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(clone, BUILT_MARKER))).toBe(false);
  });

  it("builds a clone that is not built yet", () => {
    fakeBuildScript();
    fakeBuildTools();
    const result = runPrepareAsNpm("exec");
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(clone, BUILT_MARKER))).toBe(true);
  });
});
