import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import type { QueryResult } from "../../src/query/query-engine.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "kgrag.js");

/** The CLI as users get it: bin/kgrag.js running the bundle `npm run build` wrote to dist/cli. */
describe("packaged CLI (bin/kgrag.js, built)", () => {
  let dir: string;
  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist", "cli", "kgrag-cli.js")))
      throw new Error("dist/cli is missing: run `npm run build` (npm ci runs it) before the tests");
    dir = mkdtempSync(join(tmpdir(), "kgrag-packaged-"));
    writeFileSync(
      join(dir, "corvane.txt"),
      "Corvane Shipping\n\nIt was founded in 1987 by Tomas Arkwright.\n",
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const kgrag = (args: string[]) =>
    run(process.execPath, [BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir } });

  it("prints the package version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect((await kgrag(["--version"])).stdout.trim()).toBe(version);
  });

  it("indexes, reports status and answers from the bundle", async () => {
    await kgrag(["index", "corvane.txt", "--workspace", "ws"]);
    const status = JSON.parse((await kgrag(["status", "--json", "--workspace", "ws"])).stdout) as {
      counts: { documents: number };
      extractor: string;
    };
    expect(status.counts.documents).toBe(1);
    expect(status.extractor).toBe("offline-nlp");
    const answer = await kgrag(["query", "Who founded Corvane Shipping?", "--workspace", "ws"]);
    expect(answer.stdout).toContain("Tomas Arkwright");
  });

  it("prints the top-level help from its command table, and a command's own help", async () => {
    const help = (await kgrag(["--help"])).stdout;
    for (const name of ["index", "status", "query", "export", "serve", "entities"])
      expect(help).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    expect((await kgrag(["help", "query"])).stdout).toContain("--context-only");
  });

  it("sends its spans to a tracer provider registered through the application's own OpenTelemetry API", async () => {
    // The bundle carries its own copy of @opentelemetry/api; copies share the global registry.
    const spans = join(dir, "spans.txt");
    const preload = pathToFileURL(join(ROOT, "test", "support", "otel-span-names.mjs")).href;
    await run(
      process.execPath,
      ["--import", preload, BIN, "query", "Who founded Corvane Shipping?", "-w", "ws"],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, SPAN_NAMES_FILE: spans },
      },
    );
    const names = readFileSync(spans, "utf8").split("\n");
    expect(names).toContain("kgrag.query");
    expect(names).toContain("kgrag.query.keywords");
  });

  // The bundle counts tokens with the ranks saved as JSON beside it and opens only the services a
  // query needs; run from sources, the library uses gpt-tokenizer's module and its full facade.
  it("builds the same budgeted context as the library run from sources", async () => {
    const tight = join(dir, "tight.json");
    // Small enough that only exact token counts decide which lines are kept.
    writeFileSync(tight, JSON.stringify({ query: { entityTokens: 12, relationshipTokens: 12 } }));
    const question = "Who founded Corvane Shipping?";
    const printed = await kgrag([
      "query",
      question,
      "--json",
      "--context-only",
      "--config",
      tight,
      "--workspace",
      "ws",
    ]);
    const fromBundle = JSON.parse(printed.stdout) as QueryResult;
    const library = await createKgrag({
      env: { KGRAG_CONFIG: tight },
      config: { workspace: join(dir, "ws") },
    });
    try {
      const fromSources = await library.query(question, { contextOnly: true });
      expect(fromBundle.context).toEqual(JSON.parse(JSON.stringify(fromSources.context)));
      const unbudgeted = await library.query(question, { contextOnly: true, entityTokens: 6000 });
      expect(fromSources.context.entities.length).toBeLessThan(unbudgeted.context.entities.length);
    } finally {
      await library.close();
    }
  });
});
