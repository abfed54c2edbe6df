import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KgragConfigInput } from "../../src/config.js";
import { ConfigError } from "../../src/config-error.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { type CreateKgragOptions, createKgrag } from "../../src/kgrag.js";
import { closestName } from "../../src/util/closest-name.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-library-options-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Options as a JavaScript caller passes them: not checked by the compiler. */
const untyped = (options: Record<string, unknown>) => options as CreateKgragOptions;
const untypedConfig = (config: Record<string, unknown>) => config as KgragConfigInput;

/** Runs `work` in an empty folder, to see whether it created ./kgrag-data there. */
async function inEmptyFolder(work: () => Promise<unknown>): Promise<void> {
  const started = process.cwd();
  process.chdir(dir);
  try {
    await work();
  } finally {
    process.chdir(started);
  }
}

describe("createKgrag's options are strict", () => {
  it("refuses a misspelt config key, naming the key meant, and creates no ./kgrag-data", async () => {
    await inEmptyFolder(async () => {
      const opening = createKgrag({ env: {}, config: untypedConfig({ workspce: join(dir, "ws") }) });
      await expect(opening).rejects.toBeInstanceOf(ConfigError);
      await expect(opening).rejects.toThrow(/workspce: unknown key \(did you mean "workspace"\?/);
    });
    expect(existsSync(join(dir, "kgrag-data"))).toBe(false);
  });

  it("refuses an unknown key nested in config, with its path", async () => {
    const opening = createKgrag({ env: {}, config: untypedConfig({ workspace: dir, query: { topk: 3 } }) });
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(/query\.topk: unknown key \(did you mean "topK"\?/);
  });

  it("refuses a misspelt option beside config, and creates no ./kgrag-data", async () => {
    await inEmptyFolder(async () => {
      const opening = createKgrag(untyped({ env: {}, confg: { workspace: join(dir, "ws") } }));
      await expect(opening).rejects.toBeInstanceOf(ConfigError);
      await expect(opening).rejects.toThrow(/Unknown createKgrag option "confg" \(did you mean "config"\?\)/);
    });
    expect(existsSync(join(dir, "kgrag-data"))).toBe(false);
  });

  it("refuses a config that is no object of settings", async () => {
    await expect(createKgrag(untyped({ env: {}, config: "./kgrag-data" }))).rejects.toThrow(
      /Invalid createKgrag options:[\s\S]*must be an object of settings[\s\S]*at config/,
    );
  });

  it("still opens with known options, process.env as the environment", async () => {
    // Given models and storage: whatever the test's environment configures does not matter here.
    const kg = await createKgrag({
      env: process.env,
      config: { workspace: dir, storage: "sqlite" },
      chat: null,
      embedder: new HashingEmbedder(),
      progress: undefined,
    });
    await kg.close();
  });
});

describe("closestName", () => {
  const known = ["communities", "prune", "signal"];

  it.each([
    ["prnue", "prune"],
    ["Prune", "prune"],
    ["comunities", "communities"],
    ["signl", "signal"],
  ])("takes %s for %s", (name, meant) => {
    expect(closestName(name, known)).toBe(meant);
  });

  it("guesses nothing for a name no known one is close to, nor between two equally close ones", () => {
    expect(closestName("colour", known)).toBeUndefined();
    expect(closestName("bats", ["bass", "bath"])).toBeUndefined();
  });

  it("knows synonyms callers reach for", () => {
    expect(closestName("filter", ["metadata"], { filter: "metadata" })).toBe("metadata");
  });
});
