import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import type { QueryResult } from "../../src/query/query-engine.js";
import { CLI_BUNDLE_ENV, runCli } from "../support/cli-child.js";

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

/** The CommonJS files a process loaded, from Node's module debug log. */
function loadedFiles(stderr: string): string[] {
  return [...stderr.matchAll(/^MODULE \d+: load "([^"]+)"/gm)].map((m) => m[1] ?? "");
}

function outcome(result: QueryResult) {
  const { timings: _timings, ...rest } = result;
  return rest;
}

/**
 * The bundled CLI tags the question with compromise ready-built (scripts/bundle-compromise.mjs),
 * not the package's build, which builds its whole English model as it loads; the answer is the
 * one the library gives from its sources, which use the package's build.
 */
describe("`kgrag query` from the bundled CLI", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-query-compromise-"));
  const workspace = join(root, "ws");
  let fromSources: QueryResult;

  beforeAll(async () => {
    const kgrag = await createKgrag({ env: {}, config: { workspace } });
    try {
      await kgrag.index(CORPUS);
      fromSources = await kgrag.query(QUESTION);
    } finally {
      await kgrag.close();
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("loads the ready-built compromise and answers as the sources do", async () => {
    expect(process.env[CLI_BUNDLE_ENV]).toBeDefined();
    const run = await runCli(["query", QUESTION, "--json", "--workspace", workspace], {
      NODE_DEBUG: "module",
    });
    expect(run.code).toBe(0);
    const loaded = loadedFiles(run.stderr);
    expect(loaded.some((file) => file.endsWith(join("compromise", "two.cjs")))).toBe(true);
    expect(loaded.filter((file) => file.includes(join("node_modules", "compromise")))).toEqual([]);
    const printed = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as QueryResult;
    expect(outcome(printed)).toEqual(outcome(fromSources));
    expect(printed.answer).toContain("Saltmere");
  });
});
