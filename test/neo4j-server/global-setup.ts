import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { type GivenNeo4j, WHOLE_DATABASE_FILE, WHOLE_DATABASE_PROJECT } from "./given-neo4j.js";
import { launchTestNeo4j, missingTools, type StartingNeo4j } from "./test-neo4j.js";

/**
 * Vitest global setup: gives the live Neo4j tests (test/neo4j/) a database. NEO4J_URI set by the
 * caller wins; otherwise the suite starts its own Neo4j 5.26 and stops it at the end. Without Java
 * or Maven the live tests are skipped, once and with the reason, except in CI, where that is an
 * error: CI must run them.
 *
 * The server is started, not waited for: the tests that need no database run while it boots, and
 * test/support/live-neo4j.ts holds a live test back until the server wrote its ready file. The
 * whole-database tests (their own vitest project) get a server of their own when the suite starts
 * them, so they can run beside the rest instead of alone after it.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const wholeDatabase = project.name === WHOLE_DATABASE_PROJECT;
  if (!runsNeo4jTests(process.argv, wholeDatabase)) return undefined;
  if (process.env.KGRAG_TEST_NEO4J_SKIPPED) return undefined;
  // Each vitest project runs this setup: the shared server is started once, for all of them.
  if (process.env.KGRAG_TEST_NEO4J && !wholeDatabase) return undefined;
  if (process.env.NEO4J_URI && !process.env.KGRAG_TEST_NEO4J) {
    process.env.KGRAG_TEST_NEO4J = `given by NEO4J_URI (${process.env.NEO4J_URI})`;
    return undefined;
  }
  if (process.env.KGRAG_TEST_NEO4J?.startsWith("given")) return undefined;
  const missing = await missingTools();
  if (missing) {
    if (process.env.CI) throw new Error(`CI must run the Neo4j tests, but ${missing}.`);
    process.env.KGRAG_TEST_NEO4J_SKIPPED = missing;
    console.warn(`Neo4j tests skipped: ${missing}.`);
    return undefined;
  }
  const started = Date.now();
  // The suite's queries are short and varied: the client compiler alone costs the least CPU.
  const server = await launchTestNeo4j((line) => console.log(line), {}, "quick");
  const readyDir = mkdtempSync(join(tmpdir(), "kgrag-test-neo4j-ready-"));
  const given: GivenNeo4j = {
    uri: server.uri,
    username: server.username,
    password: server.password,
    readyFile: join(readyDir, "ready.json"),
  };
  const description = `Neo4j ${server.version} started by the suite at ${server.uri}`;
  if (wholeDatabase) {
    project.provide("wholeDatabaseNeo4j", given);
  } else {
    process.env.NEO4J_URI = server.uri;
    process.env.NEO4J_USERNAME = server.username;
    process.env.NEO4J_PASSWORD = server.password;
    process.env.KGRAG_TEST_NEO4J_READY = given.readyFile;
    process.env.KGRAG_TEST_NEO4J = description;
  }
  const whose = wholeDatabase ? " (whole-database tests)" : "";
  const ready = reportReady(server, given.readyFile).then((error) => {
    if (error) console.error(`The test Neo4j${whose} did not start: ${error}`);
    else console.log(`${description}${whose} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  return async () => {
    await ready;
    await server.stop();
    rmSync(readyDir, { recursive: true, force: true });
  };
}

/** Writes the ready file once the server answers, with the error when it could not start. */
async function reportReady(server: StartingNeo4j, readyFile: string): Promise<string | undefined> {
  let error: string | undefined;
  try {
    await server.ready;
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  }
  writeFileSync(readyFile, JSON.stringify(error ? { error } : { ready: true }));
  return error;
}

/**
 * False when the command line names test files and none of them is a live Neo4j test of this
 * project (`vitest run test/unit/foo.test.ts`): no server is started for a run that cannot use it.
 */
function runsNeo4jTests(argv: string[], wholeDatabase: boolean): boolean {
  const run = argv.findIndex((arg) => arg === "run" || arg.endsWith("vitest.mjs") || arg.endsWith("vitest"));
  const filters = argv.slice(run + 1).filter((arg) => !arg.startsWith("-") && arg !== "run");
  if (filters.length === 0) return true;
  // Vitest keeps the files whose path contains a filter.
  const liveTests = readdirSync(LIVE_TESTS)
    .map((name) => `test/neo4j/${name}`)
    .filter((file) => (file === WHOLE_DATABASE_FILE) === wholeDatabase);
  return filters.some((filter) => {
    const plain = filter.replace(/^\.\//, "");
    return liveTests.some((file) => file.includes(plain));
  });
}

const LIVE_TESTS = fileURLToPath(new URL("../neo4j/", import.meta.url));
