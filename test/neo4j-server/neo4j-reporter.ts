import type { Reporter, TestModule } from "vitest/node";

/**
 * Says at the end of the run how many live Neo4j tests (files under test/neo4j/) ran, against
 * which server, and fails the run in CI if any of them was skipped.
 */
export default class Neo4jReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) {
      if (!/[\\/]test[\\/]neo4j[\\/]/.test(module.moduleId)) continue;
      for (const test of module.children.allTests()) counts[test.result().state] += 1;
    }
    const ran = counts.passed + counts.failed;
    const server =
      process.env.KGRAG_TEST_NEO4J ?? `no server (${process.env.KGRAG_TEST_NEO4J_SKIPPED ?? "not started"})`;
    console.log(
      `\nNeo4j live tests: ${ran} ran (${counts.passed} ok, ${counts.failed} not ok), ${counts.skipped} skipped; ${server}\n`,
    );
    if (process.env.CI && counts.skipped > 0) {
      console.error("CI must run every Neo4j test, but some were skipped.");
      process.exitCode = 1;
    }
  }
}
