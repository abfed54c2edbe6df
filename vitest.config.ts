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

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
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
          exclude: [WHOLE_DATABASE_FILE],
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
