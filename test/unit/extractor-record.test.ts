import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { recordedExtractors } from "../../src/workspace/embedding-guard.js";
import { runMain } from "../support/cli-in-process.js";

/**
 * A workspace says which extractors built its graph. Unchanged documents are never extracted
 * again, so a run with another extractor (a model configured after the offline built-ins) must
 * neither claim their graph nor keep quiet that they were left as they were.
 */
let dir: string;
let corpus: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-extractor-record-"));
  corpus = join(dir, "corpus");
  mkdirSync(corpus);
  writeFileSync(join(corpus, "porto.md"), "# Porto\n\nInes Varga repairs clocks in Porto.\n");
  writeFileSync(join(corpus, "lisbon.md"), "# Lisbon\n\nTomas Reis lives in Lisbon.\n");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The workspace as another extractor (a model) would have left it. */
async function builtByAModel(workspace: string): Promise<void> {
  const kg = await createKgrag({ env: {}, config: { workspace } });
  await kg.index([corpus], { communities: false });
  await kg.services.store.setMeta("extractor", "llm");
  await kg.close();
}

describe("the extractors a workspace records", () => {
  it("a run that extracts nothing keeps the recorded extractor and says the unchanged documents keep its graph", async () => {
    const workspace = join(dir, "ws");
    await builtByAModel(workspace);
    const kg = await createKgrag({ env: {}, config: { workspace } });
    try {
      const unchanged = await kg.index([corpus], { communities: false });
      expect(unchanged.unchanged).toHaveLength(2);
      expect(unchanged.extractedByOthers).toEqual({ documents: 2, extractors: ["llm"] });
      expect(await recordedExtractors(kg.services.store)).toEqual(["llm"]);

      writeFileSync(join(corpus, "faro.md"), "# Faro\n\nInes Varga sailed to Faro.\n");
      const added = await kg.index([corpus], { communities: false });
      expect(added.added).toHaveLength(1);
      expect(await recordedExtractors(kg.services.store)).toEqual(["llm", "offline-nlp"]);
    } finally {
      await kg.close();
    }
  });

  it("kgrag index notes it on stderr with the way to extract them again, and status names every extractor", async () => {
    const workspace = join(dir, "ws");
    await builtByAModel(workspace);
    const run = await runMain(["index", corpus, "--workspace", workspace, "--no-communities", "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).extractedByOthers).toEqual({ documents: 2, extractors: ["llm"] });
    expect(run.stderr).toContain("2 unchanged documents keep the graph the llm extractor made");
    expect(run.stderr).toContain(`\`kgrag delete --path ${corpus}\`, then \`kgrag index ${corpus}\``);
    const status = await runMain(["status", "--workspace", workspace, "--json"]);
    expect(JSON.parse(status.stdout).extractor).toBe("llm");
  });
});

describe("the chunking settings a workspace records", () => {
  it("unchanged documents keep their chunks when the chunking changes, and the run says so", async () => {
    const workspace = join(dir, "ws");
    const first = await createKgrag({ env: {}, config: { workspace } });
    const fresh = await first.index([corpus], { communities: false });
    expect(fresh.chunkedOtherwise).toBeUndefined();
    await first.close();

    const smaller = { workspace, chunking: { size: 64, overlap: 8 } };
    const kg = await createKgrag({ env: {}, config: smaller });
    try {
      const again = await kg.index([corpus], { communities: false });
      expect(again.unchanged).toHaveLength(2);
      expect(again.chunkedOtherwise).toEqual({
        documents: 2,
        chunking: ["size 1200, overlap 100, o200k_base"],
        configured: "size 64, overlap 8, o200k_base",
      });
    } finally {
      await kg.close();
    }
    writeFileSync(join(dir, "small.json"), JSON.stringify(smaller));
    const run = await runMain(["--config", join(dir, "small.json"), "index", corpus, "--no-communities"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "2 unchanged documents keep the chunks cut with size 1200, overlap 100, o200k_base; the configured " +
        "chunking (size 64, overlap 8, o200k_base) cuts only new and edited documents",
    );
  });
});
