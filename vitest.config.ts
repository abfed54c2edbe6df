import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { WHOLE_DATABASE_FILE, WHOLE_DATABASE_PROJECT } from "./test/neo4j-server/given-neo4j.js";
import LongestFirstSequencer from "./test/support/longest-first-sequencer.js";

// Most test time is spent waiting on child processes, servers and Neo4j, so one more worker than
// cores keeps both cores busy (vitest's default is cores - 1: a single worker on two cores).
const workers = Math.max(2, availableParallelism() + 1);

/**
 * The whole-database tests get a Neo4j of their own from the global setup and run beside the rest;
 * on a server the caller gave (NEO4J_URI), they must wait until every other test is done with it.
 */
const sharedServerGiven = Boolean(process.env.NEO4J_URI);

/**
 * Unit tests share their worker processes (`isolate: false`): loading the library and its
 * dependencies once per worker rather than once per file halves the CPU they take. A file that
 * replaces a module with `vi.mock` keeps a process of its own, since the replacement would stay.
 */
const UNIT_DIR = "test/unit";
const unitFiles = readdirSync(new URL(`./${UNIT_DIR}/`, import.meta.url))
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `${UNIT_DIR}/${name}`);
const mocksModules = (file: string) =>
  /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(new URL(`./${file}`, import.meta.url), "utf8"));
const sharedProcessTests = unitFiles.filter((file) => !mocksModules(file));

export default defineConfig({
  test: {
    // Room for two cores shared with other work: a test that indexes a corpus through two CLI
    // processes has taken over a minute there. A hung test still fails, two minutes on.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Starts the test Neo4j for test/neo4j/ (unless NEO4J_URI is given) and stops it at the end;
    // bundles the CLI from the sources for the tests that run it as a process.
    globalSetup: ["test/neo4j-server/global-setup.ts", "test/support/cli-bundle-setup.ts"],
    reporters: ["default", "./test/neo4j-server/neo4j-reporter.ts"],
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["test/**/*.test.ts"],
          exclude: [WHOLE_DATABASE_FILE, ...sharedProcessTests],
          maxWorkers: workers,
        },
      },
      {
        extends: true,
        test: {
          name: "unit",
          include: sharedProcessTests,
          isolate: false,
          // Same as the suite's: projects of one group share one worker limit.
          maxWorkers: workers,
        },
      },
      {
        extends: true,
        test: {
          name: WHOLE_DATABASE_PROJECT,
          include: [WHOLE_DATABASE_FILE],
          // Its one file runs its suites one after another; a group shares one worker limit.
          maxWorkers: workers,
          sequence: { groupOrder: sharedServerGiven ? 1 : 0 },
        },
      },
    ],
  },
});
