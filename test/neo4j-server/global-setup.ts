import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { missingTools, startTestNeo4j } from "./test-neo4j.js";

/**
 * Vitest global setup: gives the live Neo4j tests (test/neo4j/) a database. NEO4J_URI set by the
 * caller wins; otherwise the suite starts its own Neo4j 5.26 and stops it at the end. Without Java
 * or Maven the live tests are skipped, once and with the reason, except in CI, where that is an
 * error: CI must run them.
 */
export default async function setup(_project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!runsNeo4jTests(process.argv)) return undefined;
  // Each vitest project runs this setup: the first one started the server for all of them.
  if (process.env.KGRAG_TEST_NEO4J || process.env.KGRAG_TEST_NEO4J_SKIPPED) return undefined;
  if (process.env.NEO4J_URI) {
    process.env.KGRAG_TEST_NEO4J = `given by NEO4J_URI (${process.env.NEO4J_URI})`;
    return undefined;
  }
  const missing = await missingTools();
  if (missing) {
    if (process.env.CI) throw new Error(`CI must run the Neo4j tests, but ${missing}.`);
    process.env.KGRAG_TEST_NEO4J_SKIPPED = missing;
    console.warn(`Neo4j tests skipped: ${missing}.`);
    return undefined;
  }
  const started = Date.now();
  const server = await startTestNeo4j((line) => console.log(line));
  process.env.NEO4J_URI = server.uri;
  process.env.NEO4J_USERNAME = server.username;
  process.env.NEO4J_PASSWORD = server.password;
  process.env.KGRAG_TEST_NEO4J = `Neo4j ${server.version} started by the suite at ${server.uri}`;
  console.log(`${process.env.KGRAG_TEST_NEO4J} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return () => server.stop();
}

/**
 * False when the command line names test files and none of them is a live Neo4j test
 * (`vitest run test/unit/foo.test.ts`): no server is started for a run that cannot use it.
 */
function runsNeo4jTests(argv: string[]): boolean {
  const run = argv.findIndex((arg) => arg === "run" || arg.endsWith("vitest.mjs") || arg.endsWith("vitest"));
  const filters = argv.slice(run + 1).filter((arg) => !arg.startsWith("-") && arg !== "run");
  if (filters.length === 0) return true;
  // Vitest keeps the files whose path contains a filter.
  const liveTests = readdirSync(LIVE_TESTS).map((name) => `test/neo4j/${name}`);
  return filters.some((filter) => {
    const plain = filter.replace(/^\.\//, "");
    return liveTests.some((file) => file.includes(plain));
  });
}

const LIVE_TESTS = fileURLToPath(new URL("../neo4j/", import.meta.url));
