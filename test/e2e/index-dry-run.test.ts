import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DryRunReport } from "../../src/estimate/dry-run.js";
import { createKgrag } from "../../src/kgrag.js";
import { packagePath } from "../../src/util/paths.js";
import { countTokens } from "../../src/util/tokens.js";
import { runMain } from "../support/cli-in-process.js";
import { plausibleReplies } from "../support/plausible-replies.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

const CORPUS = [packagePath("docs", "query.md"), packagePath("docs", "lifecycle.md")];
const PRICE = { inputPerMillion: 2, outputPerMillion: 8 };

let server: ScriptedServer;
let dir: string;
let configFile: string;
let env: Record<string, string>;

beforeEach(async () => {
  server = await startScriptedOpenAI({ chat: plausibleReplies });
  dir = mkdtempSync(join(tmpdir(), "kgrag-dry-run-"));
  configFile = join(dir, "kgrag.config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      workspace: "ws",
      llm: { baseURL: server.baseURL, model: "scripted", price: PRICE, concurrency: 4 },
      chunking: { size: 300, overlap: 30 },
      extraction: { gleaning: 1 },
      community: { enabled: false },
    }),
  );
  env = { KGRAG_CONFIG: configFile };
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("kgrag index --dry-run", () => {
  it("calls no model, writes no workspace, and prices the estimate at the configured prices", async () => {
    const result = await runMain(["--config", configFile, "index", "--dry-run", ...CORPUS, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DryRunReport;
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(dir, "ws"))).toBe(false);
    expect(report.documents).toBe(2);
    expect(report.chunks).toBeGreaterThan(4);
    const extract = report.stages.extract;
    expect(extract?.calls).toBe(report.chunks);
    expect(report.stages.glean?.calls).toBe(report.chunks);
    expect(extract?.cost).toBeCloseTo(
      ((extract?.inputTokens ?? 0) * PRICE.inputPerMillion +
        (extract?.outputTokens ?? 0) * PRICE.outputPerMillion) /
        1e6,
    );
    expect(report.stages.report?.calls).toBe(0);
  });

  it("refuses --prune and says the estimate leaves out the removals it makes", async () => {
    const result = await runMain(["index", "--dry-run", "--prune", ...CORPUS], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--dry-run does not estimate --prune: .* as an update of the workspace/);
    expect(result.stderr).not.toMatch(/from scratch/);
    expect(server.requests).toHaveLength(0);
  });

  it("counts a real run's extraction and gleaning calls exactly, and extraction prompt tokens within 15%", async () => {
    const dry = JSON.parse(
      (await runMain(["index", "--dry-run", ...CORPUS, "--json"], env)).stdout,
    ) as DryRunReport;
    const kgrag = await createKgrag({ env });
    const summary = await kgrag.index(CORPUS);
    await kgrag.close();
    expect(dry.stages.extract?.calls).toBe(server.count("extract"));
    expect(dry.stages.glean?.calls).toBe(server.count("glean"));
    // Gleaning prompts carry the model's first answer, whose length only the model decides.
    const actual = summary.usage.extract?.promptTokens ?? 0;
    expect(Math.abs((dry.stages.extract?.inputTokens ?? 0) - actual) / actual).toBeLessThan(0.15);
  });
  it("estimates the summaries, reports and embeddings of a real run within 15%", async () => {
    // Summaries from three fragments, so this small corpus has some; communities and an embedding model on.
    const file = join(dir, "full.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        workspace: "ws-full",
        llm: { baseURL: server.baseURL, model: "scripted", concurrency: 4 },
        embedding: { baseURL: server.baseURL, model: "scripted-embed", dimension: 64, batchSize: 16 },
        chunking: { size: 300, overlap: 30 },
        merge: { summaryMinFragments: 3 },
      }),
    );
    const dry = JSON.parse(
      (await runMain(["index", "--dry-run", ...CORPUS, "--json"], { KGRAG_CONFIG: file })).stdout,
    ) as DryRunReport;
    expect(server.requests).toHaveLength(0);
    const kgrag = await createKgrag({ env: { KGRAG_CONFIG: file } });
    await kgrag.index(CORPUS);
    await kgrag.close();

    const near = (estimated: number | undefined, actual: number) =>
      expect(
        Math.abs((estimated ?? 0) - actual),
        `estimated ${estimated}, actual ${actual}`,
      ).toBeLessThanOrEqual(0.15 * actual);
    for (const stage of ["summarize", "report"] as const) {
      expect(server.count(stage)).toBeGreaterThan(0);
      near(dry.stages[stage]?.calls, server.count(stage));
    }
    // Entity resolution's confirmations: the pairs names and the graph leave open are counted
    // (they were left out); those only embedding similarity proposes cannot be, so at most the run's.
    expect(dry.stages.resolve?.calls).toBeGreaterThan(0);
    expect(dry.stages.resolve?.calls).toBeLessThanOrEqual(server.count("resolve"));
    // Now indexed, the same documents are left out as unchanged; the variants below estimate them
    // on another, empty workspace.
    const again = await runMain(["index", "--dry-run", ...CORPUS], { KGRAG_CONFIG: file });
    expect(again.stdout).toContain("Dry run: 0 document(s)");
    expect(again.stdout).toContain(
      `${CORPUS.length} document(s) already indexed with the same content were left out`,
    );
    const fresh = ["--workspace", join(dir, "ws-estimate")];
    const unresolved = JSON.parse(
      (
        await runMain(["index", "--dry-run", ...fresh, ...CORPUS, "--json"], {
          KGRAG_CONFIG: file,
          KGRAG_ENTITY_RESOLUTION: "off",
        })
      ).stdout,
    ) as DryRunReport;
    expect(unresolved.stages.resolve?.calls).toBe(0);
    // --no-communities: the same estimate without reports.
    const without = JSON.parse(
      (
        await runMain(["index", "--dry-run", "--no-communities", ...fresh, ...CORPUS, "--json"], {
          KGRAG_CONFIG: file,
        })
      ).stdout,
    ) as DryRunReport;
    expect(without.stages.report?.calls).toBe(0);
    expect(without.stages.extract?.calls).toBe(dry.stages.extract?.calls);
    const embedded = server.requests
      .filter((r) => r.path === "/v1/embeddings")
      .flatMap((r) => r.body.input as string[]);
    near(dry.embedding.inputs, embedded.length);
  });

  it("reports a real run's embedding requests, tokens and cost as the dry run estimates them", async () => {
    const file = join(dir, "embed.config.json");
    const price = { inputPerMillion: 0.5 };
    writeFileSync(
      file,
      JSON.stringify({
        workspace: "ws-embed",
        llm: { baseURL: server.baseURL, model: "scripted", concurrency: 4 },
        embedding: { baseURL: server.baseURL, model: "scripted-embed", dimension: 64, batchSize: 16, price },
        chunking: { size: 300, overlap: 30 },
        community: { enabled: false },
      }),
    );
    const run = await runMain(["index", ...CORPUS, "--json"], { KGRAG_CONFIG: file });
    expect(run.code).toBe(0);
    const sent = server.requests.filter((r) => r.path === "/v1/embeddings");
    const tokens = sent.flatMap((r) => r.body.input as string[]).reduce((sum, t) => sum + countTokens(t), 0);
    expect(sent.length).toBeGreaterThan(0);
    expect(JSON.parse(run.stdout).embedding).toEqual({
      requests: sent.length,
      tokens,
      cost: (tokens * price.inputPerMillion) / 1e6,
    });

    const extra = join(dir, "extra.md");
    writeFileSync(
      extra,
      "Ada Lovelace wrote the first program for the Analytical Engine of Charles Babbage.",
    );
    const human = await runMain(["index", extra], { KGRAG_CONFIG: file });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Embedding requests: [1-9]\d* \(\d+ tokens, \$0\.\d{4}\)\.$/m);
  });
});
