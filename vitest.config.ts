import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Live Neo4j tests that compare the whole database's node and relationship counts before and
 * after a refused write: no other test may write to the shared database while they run.
 */
const WHOLE_DATABASE_TESTS = [
  "test/neo4j/cypher-explore.test.ts",
  "test/neo4j/mcp-cypher.test.ts",
  "test/neo4j/text2cypher-movies.test.ts",
];

// Most test time is spent waiting on child processes, servers and Neo4j, so one more worker than
// cores keeps both cores busy (vitest's default is cores - 1: a single worker on two cores).
const workers = Math.max(2, availableParallelism() + 1);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Starts the test Neo4j for test/neo4j/ (unless NEO4J_URI is given) and stops it at the end.
    globalSetup: ["test/neo4j-server/global-setup.ts"],
    reporters: ["default", "./test/neo4j-server/neo4j-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["test/**/*.test.ts"],
          exclude: WHOLE_DATABASE_TESTS,
          maxWorkers: workers,
        },
      },
      {
        extends: true,
        test: {
          name: "whole-database",
          include: WHOLE_DATABASE_TESTS,
          maxWorkers: 1,
          // After the rest of the suite, alone on the database.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
