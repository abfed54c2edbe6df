import { describe, expect, it } from "vitest";
import { commandRefusals, procedureRefusals } from "../../src/cypher/introspection.js";

describe("procedureRefusals without a word boundary before CALL", () => {
  const glued = [
    "MATCH (n) WITH n LIMIT 1CALL db.stats.clear() YIELD section RETURN section",
    "MATCH (n) WITH n)CALL db.stats.clear() YIELD section RETURN section",
    "MATCH (n) WITH n LIMIT 1\nCALL db.stats.clear() YIELD section RETURN section",
    "MATCH (n) WITH n LIMIT 1/*x*/CALL db.stats.clear() YIELD section RETURN section",
  ];
  it.each(glued)("refuses %j", (query) => {
    expect(procedureRefusals(query)).not.toEqual([]);
  });

  it("still lets a read-only query without CALL through", () => {
    expect(procedureRefusals("MATCH (n) RETURN n LIMIT 1")).toEqual([]);
  });

  it("still lets a listed procedure through", () => {
    expect(procedureRefusals("MATCH (n) WITH n LIMIT 1 CALL db.labels() YIELD label RETURN label")).toEqual(
      [],
    );
  });
});

describe("commandRefusals without a word boundary", () => {
  it("refuses TERMINATE glued to a number", () => {
    expect(commandRefusals("RETURN 1TERMINATE TRANSACTIONS 'neo4j-transaction-1'")).not.toEqual([]);
  });
});
