import { execFile } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bundleIdentity,
  cacheFileFor,
  cacheVariantOf,
  defaultCacheDir,
  loadBundleWithCodeCache,
  sha256,
} from "../../src/cli/code-cache.js";
import { REPO_ROOT } from "../support/cli-child.js";

const exec = promisify(execFile);

/** A CommonJS bundle with a function that runs only when called (compiled lazily by V8). */
const BUNDLE = `
const path = require("node:path");
exports.describe = (n) => ({ file: path.basename(__filename), squares: Array.from({ length: n }, (_, i) => i * i) });
`;
const DESCRIBED = { file: "bundle.cjs", squares: [0, 1, 4] };

describe("the bundled CLI's code cache", () => {
  let dir: string;
  let bundle: string;
  let cacheDir: string;

  interface ChildLoad {
    state: string;
    /** Named under the child's V8 options (its --import tsx), so the child says which. */
    cacheFile?: string;
    result: unknown;
  }
  /** One load in a process of its own, as one CLI start: what it found, what the bundle returned. */
  async function loadInChild(env: NodeJS.ProcessEnv = {}, file = bundle): Promise<ChildLoad> {
    const { stdout } = await exec(
      process.execPath,
      ["--import", "tsx", "test/support/code-cache-child.ts", file, cacheDir],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", ...env } },
    );
    return JSON.parse(stdout) as ChildLoad;
  }
  /** The cache file of `bundle`, named by its first load. */
  let ownCacheFile = "";
  const cacheFile = () => ownCacheFile;
  const firstLoad = async () => {
    const first = await loadInChild();
    ownCacheFile = first.cacheFile ?? "";
    return first;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kgrag-code-cache-"));
    bundle = join(dir, "bundle.cjs");
    writeFileSync(bundle, BUNDLE);
    cacheDir = join(dir, "cache");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the cache after the first run, and the second run uses it without rewriting it", async () => {
    expect(await firstLoad()).toMatchObject({ state: "missing", result: DESCRIBED });
    expect(readdirSync(cacheDir)).toEqual([cacheFile().split(/[/\\]/).at(-1)]);
    const written = statSync(cacheFile());

    expect(await loadInChild()).toMatchObject({ state: "used", result: DESCRIBED });
    // The same file: a rewrite renames a new one into place.
    expect(statSync(cacheFile()).ino).toBe(written.ino);
    expect(statSync(cacheFile()).mtimeMs).toBe(written.mtimeMs);
  });

  it("ignores a corrupt cache, runs the bundle all the same, and rewrites the cache", async () => {
    await firstLoad();
    writeFileSync(cacheFile(), Buffer.from("not a V8 code cache, just bytes"));

    expect(await loadInChild()).toMatchObject({ state: "rejected", result: DESCRIBED });
    expect(readFileSync(cacheFile()).toString("latin1")).not.toContain("just bytes");
    expect((await loadInChild()).state).toBe("used");
  });

  it("ignores and rewrites another script's cache found under its name", async () => {
    const other = join(dir, "other.cjs");
    writeFileSync(other, `${BUNDLE}\nexports.other = "a different script, of another length";\n`);
    const otherCache = (await loadInChild({}, other)).cacheFile ?? "";
    await firstLoad();
    writeFileSync(cacheFile(), readFileSync(otherCache));

    expect(await loadInChild()).toMatchObject({ state: "rejected", result: DESCRIBED });
    expect((await loadInChild()).state).toBe("used");
  });

  it("is off with KGRAG_NO_COMPILE_CACHE=1: the bundle is required, nothing is read or written", async () => {
    expect(await loadInChild({ KGRAG_NO_COMPILE_CACHE: "1" })).toMatchObject({
      state: "off",
      result: DESCRIBED,
    });
    expect(() => readdirSync(cacheDir)).toThrow();
  });

  it("never fails the command when the cache folder cannot be written", () => {
    writeFileSync(cacheDir, "a file where the folder should be");
    const loaded = loadBundleWithCodeCache(bundle, { cacheDir, variant: "index", env: {} });
    expect(loaded.state).toBe("missing");
    expect(() => loaded.saveCache()).not.toThrow();
    expect((loaded.exports as { describe(n: number): unknown }).describe(3)).toEqual(DESCRIBED);
    expect(readdirSync(dir).sort()).toEqual(["bundle.cjs", "cache"]);
  });

  it("names the cache by the bundle's build and the command", () => {
    const identity = bundleIdentity(bundle, readFileSync(bundle));
    expect(identity.startsWith(`${sha256(BUNDLE)}:`)).toBe(true);
    // The hash the build wrote beside the bundle is taken as it is.
    writeFileSync(`${bundle}.sha256`, `${"ab".repeat(32)}\n`);
    expect(bundleIdentity(bundle, readFileSync(bundle)).startsWith(`${"ab".repeat(32)}:`)).toBe(true);

    expect(cacheFileFor(`${identity}x`, cacheDir, "index")).not.toBe(
      cacheFileFor(identity, cacheDir, "index"),
    );
    expect(cacheFileFor(identity, cacheDir, "query")).not.toBe(cacheFileFor(identity, cacheDir, "index"));
    // A command name that is not a plain word does not reach the file name.
    expect(cacheFileFor(identity, cacheDir, "../x")).toMatch(/[/\\]other-[0-9a-f]{32}\.v8$/);
  });

  it("keeps a cache per command, help and version apart, past the options before the command", () => {
    expect(cacheVariantOf(["index", "book.txt", "--json"])).toBe("index");
    expect(cacheVariantOf(["-c", "kgrag.config.json", "query", "who?"])).toBe("query");
    expect(cacheVariantOf(["--config", "ws/kgrag.config.json", "status"])).toBe("status");
    expect(cacheVariantOf(["--config=x.json", "status"])).toBe("status");
    expect(cacheVariantOf(["index", "--help"])).toBe("index-help");
    expect(cacheVariantOf(["--help"])).toBe("kgrag-help");
    expect(cacheVariantOf(["-V"])).toBe("version");
    expect(cacheVariantOf([])).toBe("kgrag");
  });

  it("leaves the cache off in a folder others may write to", () => {
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    const loaded = loadBundleWithCodeCache(bundle, { cacheDir, variant: "index", env: {} });
    expect(loaded.state).toBe("off");
    loaded.saveCache();
    expect(readdirSync(cacheDir)).toEqual([]);
    expect((loaded.exports as { describe(n: number): unknown }).describe(3)).toEqual(DESCRIBED);
  });

  it("does not feed V8 a cache file others may write, and rewrites it", async () => {
    await firstLoad();
    // What a folder swapped in after the folder check would hold: a file not the user's alone.
    chmodSync(cacheFile(), 0o666);
    expect(await loadInChild()).toMatchObject({ state: "missing", result: DESCRIBED });
    expect(statSync(cacheFile()).mode & 0o022).toBe(0);
    expect((await loadInChild()).state).toBe("used");
  });

  it("writes a cache as a new file, never through a link left at its temporary name", () => {
    const loaded = loadBundleWithCodeCache(bundle, { cacheDir, variant: "index", env: {} });
    const target = join(dir, "precious.txt");
    writeFileSync(target, "precious");
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    symlinkSync(target, `${loaded.cacheFile}.${process.pid}.tmp`);
    loaded.saveCache();
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(lstatSync(loaded.cacheFile ?? "").isFile()).toBe(true);
  });

  it("keeps the caches in the user's cache folder", () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/x/cache" })).toBe(join("/x/cache", "kgrag", "code-cache"));
  });
});
