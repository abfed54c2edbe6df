import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import type { QueryResult } from "../../src/query/query-engine.js";
import { openServices } from "../../src/workspace/open-services.js";
import { CLI_BUNDLE_ENV, runCli } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";

const CORPUS = [
  {
    id: "corvane",
    title: "Corvane Shipping",
    text: "Corvane Shipping is a freight line in Port Ellery. It was founded in 1987 by Tomas Arkwright.",
  },
  {
    id: "arkwright",
    title: "Tomas Arkwright",
    text: "Tomas Arkwright was born in Saltmere in 1951. He studied naval engineering in Glasgow.",
  },
];
const QUESTION = "Where was the founder of Corvane Shipping born?";
const OFFLINE_NOTICE = /no LLM configured .* offline built-ins: offline-nlp extractor/;

/** The CommonJS files a process loaded, from Node's module debug log. */
function loadedFiles(stderr: string): string[] {
  return [...stderr.matchAll(/^MODULE \d+: load "([^"]+)"/gm)].map((m) => m[1] ?? "");
}

/** What a query found and answered, without its timings (they differ run to run). */
function outcome(result: QueryResult) {
  const { timings: _timings, ...rest } = result;
  return rest;
}

/**
 * `kgrag query` opens only the workspace's services (openServices), not the library facade with
 * its indexing pipelines: the answer must be the one the facade gives.
 */
describe("a query through the services alone (the CLI's query opener)", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-services-open-"));
  const workspace = join(root, "ws");
  let viaFacade: QueryResult;

  beforeAll(async () => {
    const kgrag = await createKgrag({ env: {}, config: { workspace } });
    try {
      await kgrag.index(CORPUS);
      viaFacade = await kgrag.query(QUESTION);
    } finally {
      await kgrag.close();
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("answers as the library facade does", async () => {
    const services = await openServices({ env: {}, config: { workspace } });
    try {
      const { runQuery } = await import("../../src/query/query-engine.js");
      expect(outcome(await runQuery(services, QUESTION))).toEqual(outcome(viaFacade));
    } finally {
      await services.store.close();
    }
    expect(viaFacade.answer).toContain("Saltmere");
  });

  it("prints the same answer from `kgrag query`, with the offline notice", async () => {
    const run = await runMain(["query", QUESTION, "--json", "--workspace", workspace]);
    expect(run.code).toBe(0);
    expect(outcome(JSON.parse(run.stdout) as QueryResult)).toEqual(outcome(viaFacade));
    expect(run.stderr).toMatch(OFFLINE_NOTICE);
  });

  // The bundled CLI tags the question with compromise ready-built (scripts/bundle-compromise.mjs),
  // not the package's build, which builds its whole English model as it loads; the answer is the
  // one the library gives from its sources, which use the package's build.
  it("loads the ready-built compromise in the bundled CLI and answers as the sources do", async () => {
    expect(process.env[CLI_BUNDLE_ENV]).toBeDefined();
    const run = await runCli(["query", QUESTION, "--json", "--workspace", workspace], {
      NODE_DEBUG: "module",
    });
    expect(run.code).toBe(0);
    const loaded = loadedFiles(run.stderr);
    expect(loaded.some((file) => file.endsWith(join("compromise", "two.cjs")))).toBe(true);
    expect(loaded.filter((file) => file.includes(join("node_modules", "compromise")))).toEqual([]);
    const printed = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as QueryResult;
    expect(outcome(printed)).toEqual(outcome(viaFacade));
    expect(printed.answer).toContain("Saltmere");
  });

  it("still refuses a folder that holds no workspace, creating nothing", async () => {
    const missing = join(root, "not-a-workspace");
    const run = await runMain(["query", QUESTION, "--workspace", missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No kgrag workspace at .*not-a-workspace/);
  });
});
