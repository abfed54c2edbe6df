import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Starts the test Neo4j for test/neo4j/ (unless NEO4J_URI is given) and stops it at the end.
    globalSetup: ["test/neo4j-server/global-setup.ts"],
    reporters: ["default", "./test/neo4j-server/neo4j-reporter.ts"],
  },
});
