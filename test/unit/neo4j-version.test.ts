import { describe, expect, it } from "vitest";
import { assertSupportedVersion, UnsupportedServerError } from "../../src/storage/neo4j/driver-runner.js";

describe("Neo4j server version check", () => {
  it("refuses servers older than 5.23, whose Cypher lacks scoped CALL subqueries", () => {
    for (const agent of ["Neo4j/5.18.0", "Neo4j/5.22.1", "Neo4j/4.4.30"]) {
      expect(() => assertSupportedVersion(agent), agent).toThrow(UnsupportedServerError);
    }
    expect(() => assertSupportedVersion("Neo4j/5.22.0")).toThrow(/needs Neo4j 5\.23 or later/);
  });

  it("accepts 5.23 and later, 5.26 LTS and calendar versions", () => {
    for (const agent of ["Neo4j/5.23.0", "Neo4j/5.26.30", "Neo4j/2025.10.1"]) {
      expect(() => assertSupportedVersion(agent), agent).not.toThrow();
    }
  });
});
