import { describe, expect, it } from "vitest";
import {
  commandRefusals,
  procedureRefusals,
  schemaPlanRefusal,
  withUnicodeEscapesRead,
} from "../../src/cypher/introspection.js";

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

describe("queries that hide a call or command in \\uXXXX escapes", () => {
  // Neo4j's parser reads \uXXXX escapes anywhere in the query before it splits it into tokens.
  const hidden = [
    "\\u0043ALL db.stats.clear()",
    "MATCH (n) WITH n LIMIT 1 \\uu0043ALL db.stats.clear() YIELD section RETURN section",
    "RETURN 'x\\u0027 CALL db.stats.clear() //'",
    "MATCH (n) WHERE n.`a\\u0060 CALL db.stats.clear() //` = 1 RETURN n",
  ];
  it.each(hidden)("refuses the procedure in %j", (query) => {
    expect(procedureRefusals(query)).toEqual([expect.stringContaining("db.stats.clear")]);
  });

  it("refuses a TERMINATE hidden in an escape", () => {
    expect(commandRefusals("RETURN 1 \\u0054ERMINATE TRANSACTIONS 'neo4j-transaction-1'")).not.toEqual([]);
  });

  it("refuses a plan of DBMS procedures whose escapes hide another clause", () => {
    const query =
      "CALL dbms.components() YIELD name RETURN name, '\\u0027 CREATE INDEX i FOR (n:A) ON (n.p) //'";
    expect(schemaPlanRefusal(query, "planned as s")).not.toBeUndefined();
  });

  it("lets escapes that only spell string text through", () => {
    expect(
      procedureRefusals("MATCH (n) WHERE n.name = 'Caf\\u00e9' CALL db.labels() YIELD label RETURN label"),
    ).toEqual([]);
  });

  it("reads escapes as Java does: an escaped backslash starts none", () => {
    expect(withUnicodeEscapesRead("\\u0043ALL")).toBe("CALL");
    expect(withUnicodeEscapesRead("\\uuu0043ALL")).toBe("CALL");
    expect(withUnicodeEscapesRead("'\\\\u0043'")).toBe("'\\\\u0043'");
    expect(withUnicodeEscapesRead("'\\\\\\u0043'")).toBe("'\\\\C'");
  });
});
