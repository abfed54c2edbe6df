import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_BUNDLE_ENV, runCli } from "../support/cli-child.js";

/** The bundled CLI (kgrag-cli.js loading kgrag-cli.cjs through V8's code cache, src/cli/code-cache.ts). */
describe.skipIf(!process.env[CLI_BUNDLE_ENV])("the bundled CLI's code cache", () => {
  let cacheHome: string;
  const cacheDir = () => join(cacheHome, "kgrag", "code-cache");
  const kgrag = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { XDG_CACHE_HOME: cacheHome, ...env });
  const cacheFiles = () => readdirSync(cacheDir()).map((name) => join(cacheDir(), name));

  beforeEach(() => {
    cacheHome = mkdtempSync(join(tmpdir(), "kgrag-cli-code-cache-"));
  });
  afterEach(() => rmSync(cacheHome, { recursive: true, force: true }));

  it("writes one cache per command, which the next run of the command uses as it is", async () => {
    const first = await kgrag(["config", "--json-schema"]);
    expect(first.code, first.stderr).toBe(0);
    const [cache, ...others] = cacheFiles();
    expect(others).toEqual([]);
    expect(cache).toMatch(/[/\\]config-[0-9a-f]{32}\.v8$/);
    const written = statSync(cache ?? "");

    const second = await kgrag(["config", "--json-schema"]);
    expect(second.stdout).toBe(first.stdout);
    // Not rewritten (a rewrite renames a new file into place): V8 accepted it.
    expect(statSync(cache ?? "").ino).toBe(written.ino);

    await kgrag(["config", "--help"]);
    await kgrag(["--version"]);
    expect(
      cacheFiles()
        .map((file) => file.replace(/^.*[/\\]|-[0-9a-f]{32}\.v8$/g, ""))
        .sort(),
    ).toEqual(["config", "config-help", "version"]);
    // A failed run writes none: it stopped before most of what its command does.
    const failed = await kgrag(["index", join(cacheHome, "missing.txt")]);
    expect(failed.code).not.toBe(0);
    expect(cacheFiles()).toHaveLength(3);
  });

  it("runs the command over a corrupt cache and rewrites the cache", async () => {
    await kgrag(["--version"]);
    const [cache = ""] = cacheFiles();
    writeFileSync(cache, "not a V8 code cache");

    const run = await kgrag(["--version"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.stderr).toBe("");
    expect(readFileSync(cache, "latin1")).not.toBe("not a V8 code cache");
    const rewritten = statSync(cache);
    await kgrag(["--version"]);
    expect(statSync(cache).ino).toBe(rewritten.ino);
  });

  it("neither reads nor writes a cache with KGRAG_NO_COMPILE_CACHE=1", async () => {
    const run = await kgrag(["--version"], { KGRAG_NO_COMPILE_CACHE: "1" });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(cacheHome)).toEqual([]);
  });

  it("indexes offline through the bundle, cached or not: the offline built-ins load on demand", async () => {
    const file = join(cacheHome, "notes.md");
    writeFileSync(
      file,
      "Ada Lovelace worked with Charles Babbage in London.\n\nBabbage designed the **Analytical Engine**.\n",
    );
    for (const run of ["writes the cache", "uses it"]) {
      const workspace = join(cacheHome, `ws-${run.replaceAll(" ", "-")}`);
      const result = await kgrag(["index", file, "--workspace", workspace, "--json"]);
      expect(result.code, `${run}: ${result.stderr}`).toBe(0);
      const summary = JSON.parse(result.stdout) as { entities: number; relationships: number };
      // The offline extractor (with its markdown reader) and the extractive writers did the work.
      expect(summary.entities, run).toBeGreaterThan(0);
      expect(summary.relationships, run).toBeGreaterThan(0);
    }
    expect(cacheFiles().map((f) => f.replace(/^.*[/\\]|-[0-9a-f]{32}\.v8$/g, ""))).toEqual(["index"]);
  });
});
