// Loads the bundled CLI (one CommonJS file) with V8's code cache, so a command does not parse and
// compile the same two megabytes of JavaScript on every start. Node 22.1 and later have an on-disk
// compile cache of their own (`module.enableCompileCache`), Node 20 none, and V8 code caching is
// only reachable there for scripts compiled through `node:vm`. This module imports Node's built-ins
// only: it runs before anything else in the bundled CLI's process.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Script } from "node:vm";

/** How a load went: the cache was read and accepted, missing, rejected by V8, or turned off. */
export type CodeCacheState = "used" | "missing" | "rejected" | "off";

export interface LoadedBundle {
  /** The bundle's `module.exports`. */
  exports: unknown;
  state: CodeCacheState;
  /** Where the cache is read from and written to (absent when turned off). */
  cacheFile?: string;
  /**
   * Writes the cache when it was missing or rejected, with every function compiled so far (call it
   * once the command has run, so the lazily compiled ones are in). Never throws: a cache that cannot
   * be written only costs the next start its compilation.
   */
  saveCache(): void;
}

export interface CodeCacheOptions {
  /** The cache folder (default: the user's cache folder, see {@link defaultCacheDir}). */
  cacheDir?: string;
  /** Separates caches of one bundle by what a run compiles (the CLI passes its command's name). */
  variant?: string;
  env?: NodeJS.ProcessEnv;
}

/** Node's CommonJS wrapper, so the bundle sees `require`, `module` and `__filename` as under `require()`. */
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) { ";
const WRAPPER_TAIL = "\n})";

/**
 * How many caches the folder keeps (one per command and build, a few megabytes each): every new
 * build (an upgrade, a source change under the test suite) names new files, so the oldest go.
 */
const KEPT_CACHE_FILES = 16;
const CACHE_SUFFIX = ".v8";

/** The per-user cache folder: $XDG_CACHE_HOME, %LOCALAPPDATA% on Windows, else ~/.cache (or the temp folder). */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME ||
    (process.platform === "win32" ? env.LOCALAPPDATA : undefined) ||
    join(homeOrTemp(), ".cache");
  return join(base, "kgrag", "code-cache");
}

function homeOrTemp(): string {
  try {
    return homedir() || userTempDir();
  } catch {
    return userTempDir();
  }
}

/** The temp folder is shared by every local user: the cache goes to a folder of the user's own. */
function userTempDir(): string {
  return join(tmpdir(), `kgrag-${process.getuid?.() ?? "user"}`);
}

/**
 * False for an existing folder another user owns or others may write to: a cache planted there
 * would be fed to V8. A missing folder is made private (mode 0o700) when the cache is written.
 */
export function isPrivateCacheDir(dir: string): boolean {
  try {
    const stats = statSync(dir);
    if (!stats.isDirectory()) return true; // Not a folder: the cache write fails and is ignored.
    return isOwnAndPrivate(stats);
  } catch {
    return true;
  }
}

/** Owned by this process's user, and no one else may write it. */
function isOwnAndPrivate(stats: Stats): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true; // Windows: no POSIX owners or modes to check.
  return stats.uid === uid && (stats.mode & 0o022) === 0;
}

/**
 * What names a bundle's build: the hash of its bytes that the build wrote beside it
 * (`<bundle>.sha256`, scripts/bundle-cli.mjs; hashing two megabytes at every start costs several
 * milliseconds), else the hash computed here, with the file's size and time of writing, so a
 * bundle changed without its hash file still gets caches of its own.
 */
export function bundleIdentity(file: string, bytes: Buffer): string {
  const { mtimeMs } = statSync(file);
  return `${builtHash(file) ?? sha256(bytes)}:${bytes.length}:${mtimeMs}`;
}

function builtHash(file: string): string | undefined {
  try {
    const hash = readFileSync(`${file}.sha256`, "latin1").trim();
    return /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
  } catch {
    return undefined;
  }
}

export function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The cache file of a bundle: named by its identity ({@link bundleIdentity}), Node's version (which
 * fixes V8's), the process's V8 options (V8 rejects data produced under other flags), and the variant.
 */
export function cacheFileFor(bundle: string, cacheDir: string, variant: string): string {
  const key = createHash("sha256")
    .update(bundle)
    .update(
      `\0${process.version}\0${process.arch}\0${process.execArgv.join(" ")}\0${process.env.NODE_OPTIONS ?? ""}`,
    )
    .digest("hex")
    .slice(0, 32);
  return join(cacheDir, `${safeVariant(variant)}-${key}${CACHE_SUFFIX}`);
}

function safeVariant(variant: string): string {
  return /^[a-z][a-z0-9-]{0,31}$/.test(variant) ? variant : "other";
}

/** The CLI's options that come before the command and take a value (src/cli/main.ts). */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(["-c", "--config"]);

/**
 * The cache variant of a CLI run, one per command, each holding the functions its first successful
 * run compiled: `index --help` and `--version` get caches of their own, so they do not stand for the
 * command's real work.
 */
export function cacheVariantOf(argv: readonly string[]): string {
  const command = argv.find(
    (arg, i) => !arg.startsWith("-") && !GLOBAL_OPTIONS_WITH_VALUE.has(argv[i - 1] ?? ""),
  );
  if (argv.some((arg) => arg === "--help" || arg === "-h")) return `${command ?? "kgrag"}-help`;
  if (argv.some((arg) => arg === "--version" || arg === "-V")) return "version";
  return command ?? "kgrag";
}

/**
 * The bundle compiled as Node compiles a CommonJS file, with `cachedData` if given. It must not call
 * `import()` (scripts/bundle-cli.mjs turns those into `require()`): Node 20 gives a script compiled
 * from cached data no dynamic-import callback.
 */
export function compileBundle(source: string, file: string, cachedData?: Buffer): Script {
  return new Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
}

/**
 * Runs a CommonJS bundle the way `require` would, its compilation served from and saved to the
 * code cache. `KGRAG_NO_COMPILE_CACHE=1` turns the cache off (plain `require`). A cache that cannot
 * be read, or that V8 rejects (another build, a corrupt file), is ignored and rewritten by
 * {@link LoadedBundle.saveCache}.
 */
export function loadBundleWithCodeCache(file: string, options: CodeCacheOptions = {}): LoadedBundle {
  const env = options.env ?? process.env;
  const require = createRequire(file);
  if (env.KGRAG_NO_COMPILE_CACHE === "1") {
    return { exports: require(file), state: "off", saveCache: () => {} };
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir(env);
  if (!isPrivateCacheDir(cacheDir)) {
    return { exports: require(file), state: "off", saveCache: () => {} };
  }
  const bytes = readFileSync(file);
  const cacheFile = cacheFileFor(bundleIdentity(file, bytes), cacheDir, options.variant ?? "default");
  const cachedData = readCache(cacheFile);
  // The build writes it in ASCII: read as latin1, a one-byte string at a third of UTF-8's cost.
  const script = compileBundle(bytes.toString(isAscii(bytes) ? "latin1" : "utf8"), file, cachedData);
  const state: CodeCacheState =
    cachedData === undefined ? "missing" : script.cachedDataRejected ? "rejected" : "used";
  const module = { exports: {} as unknown };
  const wrapper: unknown = script.runInThisContext();
  if (typeof wrapper !== "function") throw new Error(`${file} did not compile to a CommonJS wrapper`);
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file));
  let saved = state === "used";
  return {
    exports: module.exports,
    state,
    cacheFile,
    saveCache() {
      if (saved) return;
      saved = true;
      writeCacheAtomically(cacheFile, () => script.createCachedData());
    },
  };
}

/**
 * The cache file's bytes, if the file read is the user's own and no one else may write it. Checked
 * on the open file, not by path: the folder checked before could have been swapped since (its parent
 * may be another user's, as the temp folder's kgrag-<uid> is when someone made it first), and
 * only a file the user wrote may be fed to V8.
 */
function readCache(cacheFile: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(cacheFile, "r");
    return isOwnAndPrivate(fstatSync(fd)) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) ignoreErrors(() => closeSync(fd as number));
  }
}

/** Written beside its final name and renamed, so a concurrent start reads the old file or the new, never half. */
function writeCacheAtomically(cacheFile: string, data: () => Buffer): void {
  const partial = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    if (!isPrivateCacheDir(dirname(cacheFile))) return;
    // A new file of its own ("wx"): never written through a link left at that name.
    rmSync(partial, { force: true });
    writeFileSync(partial, data(), { flag: "wx", mode: 0o600 });
    renameSync(partial, cacheFile);
    pruneOldCaches(dirname(cacheFile));
  } catch {
    ignoreErrors(() => rmSync(partial, { force: true }));
  }
}

/** Keeps the {@link KEPT_CACHE_FILES} most recently written caches of the folder. */
function pruneOldCaches(cacheDir: string): void {
  const caches = readdirSync(cacheDir)
    .filter((name) => name.endsWith(CACHE_SUFFIX))
    .map((name) => ({ file: join(cacheDir, name), written: modifiedAt(join(cacheDir, name)) }))
    .sort((a, b) => b.written - a.written);
  for (const { file } of caches.slice(KEPT_CACHE_FILES)) ignoreErrors(() => rmSync(file, { force: true }));
}

/** When a file was last written; 0 if it is gone (another process pruned it). */
function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function ignoreErrors(action: () => void): void {
  try {
    action();
  } catch {
    // A cache folder another process is tidying: nothing the command depends on.
  }
}
