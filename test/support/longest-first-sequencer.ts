import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * How long the slowest files took in a full run on two busy cores (milliseconds): the order for a
 * run with no timings of its own yet (a fresh clone, CI). Only the order depends on these figures;
 * a later run orders by the durations vitest cached.
 */
const EXPECTED_MS: Record<string, number> = {
  "test/neo4j/migrate-and-writers.test.ts": 76_000,
  "test/neo4j/storage-contract.test.ts": 63_000,
  "test/neo4j/server.test.ts": 63_000,
  "test/browser/web-app.test.ts": 58_000,
  "test/neo4j/whole-database.test.ts": 41_000,
  "test/e2e/lifecycle-interrupt.test.ts": 38_000,
  "test/unit/cypher-lint.test.ts": 30_000,
  "test/e2e/lifecycle-crash.test.ts": 28_000,
  "test/neo4j/entities-curation.test.ts": 27_000,
  "test/unit/cypher-validator.test.ts": 26_000,
  "test/server/security.test.ts": 15_000,
  "test/server/entities.test.ts": 15_000,
  "test/e2e/index-dry-run.test.ts": 14_000,
  "test/neo4j/entity-aliases-search.test.ts": 14_000,
  "test/server/documents.test.ts": 13_000,
  "test/unit/cypher-validator-cli.test.ts": 13_000,
  "test/unit/text2cypher.test.ts": 13_000,
  "test/neo4j/server-curation.test.ts": 11_000,
  "test/unit/cypher-validator-patterns.test.ts": 11_000,
  "test/e2e/lifecycle-concurrency.test.ts": 11_000,
};

/** Files that wait for the test Neo4j, which the suite starts while the first files run. */
const LIVE_NEO4J = /^test\/neo4j\//;

/**
 * Longest files first, so that no long file starts near the end and keeps one worker busy after
 * the others are done, whatever project a file belongs to (vitest's own order runs one project's
 * files after another's). The first files the workers take are ones that need no database: the
 * servers are still starting then. Groups (`sequence.groupOrder`) keep their order.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const path = (spec: TestSpecification) => relative(root, spec.moduleId).split("\\").join("/");
    const expected = (spec: TestSpecification) => {
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path(spec)}`);
      return cached?.duration ?? EXPECTED_MS[path(spec)] ?? 0;
    };
    const byGroup = new Map<number, TestSpecification[]>();
    for (const spec of await super.sort(files)) {
      const group = spec.project.config.sequence.groupOrder;
      byGroup.set(group, [...(byGroup.get(group) ?? []), spec]);
    }
    const ordered: TestSpecification[] = [];
    for (const group of [...byGroup.keys()].sort((a, b) => a - b)) {
      // A stable sort: files with no expected duration keep vitest's order (larger files first).
      const specs = [...(byGroup.get(group) ?? [])].sort((a, b) => expected(b) - expected(a));
      // Two files per worker: by then the server has usually started, even on busy cores.
      const first = 2 * (specs[0]?.project.config.maxWorkers ?? 1);
      ordered.push(...databaseLater(specs, first, (spec) => LIVE_NEO4J.test(path(spec))));
    }
    return ordered;
  }
}

/** The first `count` files, as far as there are enough others, need no database. */
function databaseLater<T>(specs: T[], count: number, needsDatabase: (spec: T) => boolean): T[] {
  const first: T[] = [];
  const held: T[] = [];
  let at = 0;
  while (first.length < count && at < specs.length) {
    const spec = specs[at++] as T;
    (needsDatabase(spec) ? held : first).push(spec);
  }
  return [...first, ...held, ...specs.slice(at)];
}
