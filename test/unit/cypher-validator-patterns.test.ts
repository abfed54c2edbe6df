import { describe, expect, it } from "vitest";
import { parseGraphSchema } from "../../src/cypher/schema.js";
import { validateCypher } from "../../src/cypher/validator.js";

/** A schema where direction matters: Person->Movie, Person->Person, Movie->Genre. */
const schema = parseGraphSchema({
  nodeProperties: {
    Person: { name: "STRING", created: "STRING", set: "STRING" },
    Movie: { title: "STRING" },
    Genre: { name: "STRING" },
  },
  relationshipProperties: { ACTED_IN: { roles: "LIST<STRING>" } },
  patterns: [
    { start: "Person", type: "ACTED_IN", end: "Movie" },
    { start: "Person", type: "FOLLOWS", end: "Person" },
    { start: "Movie", type: "IN_GENRE", end: "Genre" },
  ],
});

const directionErrors = (query: string) =>
  validateCypher(query, schema).errors.filter((e) => e.startsWith("Wrong relationship direction"));

describe("relationship directions are checked in every kind of pattern", () => {
  it.each([
    ["MATCH", "MATCH (m:Movie)-[:ACTED_IN]->(p:Person) RETURN p.name"],
    ["MATCH, leftwards arrow", "MATCH (p:Person)<-[:ACTED_IN]-(m:Movie) RETURN p.name"],
    ["second hop of a chain", "MATCH (p:Person)-[:ACTED_IN]->(m:Movie)<-[:IN_GENRE]-(g:Genre) RETURN g.name"],
    ["variable labelled in an earlier clause", "MATCH (m:Movie) WITH m MATCH (m)-[:ACTED_IN]->(x) RETURN x"],
    ["anonymous labelled end", "MATCH (p:Person)<-[:ACTED_IN]-() RETURN p.name"],
    ["EXISTS subquery", "MATCH (m:Movie) WHERE EXISTS { (m)-[:ACTED_IN]->(:Person) } RETURN m.title"],
    ["COUNT subquery", "MATCH (g:Genre) RETURN COUNT { (g)-[:IN_GENRE]->(:Movie) } AS n"],
    ["pattern predicate", "MATCH (m:Movie) WHERE NOT (m)-[:ACTED_IN]->(:Person) RETURN m.title"],
    ["pattern comprehension", "MATCH (m:Movie) RETURN [(m)-[:ACTED_IN]->(p:Person) | p.name] AS cast"],
    ["OPTIONAL MATCH", "MATCH (p:Person) OPTIONAL MATCH (p)<-[:ACTED_IN]-(m) RETURN p.name, m"],
    ["CALL subquery", "MATCH (g:Genre) CALL (g) { MATCH (g)-[:IN_GENRE]->(m) RETURN m } RETURN m"],
    ["variable-length, reversed", "MATCH (m:Movie)-[:ACTED_IN*1..2]->(x) RETURN x"],
    ["type alternatives, neither fits", "MATCH (g:Genre)-[:ACTED_IN|FOLLOWS]->(x) RETURN x"],
    ["quantified relationship", "MATCH (g:Genre)-[:IN_GENRE]->{1,2}(x) RETURN x"],
    ["undirected between wrong labels", "MATCH (p:Person)-[:IN_GENRE]-(g:Genre) RETURN g.name"],
  ])("%s", (_kind, query) => {
    expect(directionErrors(query)).toHaveLength(1);
  });

  it.each([
    ["stored direction", "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN m.title"],
    ["stored direction, written leftwards", "MATCH (m:Movie)<-[:ACTED_IN]-(p:Person) RETURN p.name"],
    ["undirected", "MATCH (m:Movie)-[:ACTED_IN]-(p:Person) RETURN p.name"],
    ["same label both ends", "MATCH (a:Person)<-[:FOLLOWS]-(b:Person) RETURN a.name"],
    ["unlabelled ends cannot be disproved", "MATCH (a)-[:ACTED_IN]->(b) RETURN a, b"],
    ["one unlabelled end", "MATCH (m:Movie)<-[:ACTED_IN]-(x) RETURN x"],
    ["type alternatives, one fits", "MATCH (p:Person)-[:ACTED_IN|IN_GENRE]->(x) RETURN x"],
    ["label alternatives, one fits", "MATCH (n:Genre|Person)-[:ACTED_IN]->(m:Movie) RETURN n"],
    ["no type", "MATCH (g:Genre)-->(x) RETURN x"],
    ["negated label is not narrowed", "MATCH (n:!Person)-[:ACTED_IN]->(m) RETURN n"],
    ["undirected multi-hop path", "MATCH (a:Person)-[:ACTED_IN*2]-(b:Person) RETURN b.name"],
    ["directed multi-hop chain", "MATCH (a:Person)-[:FOLLOWS*1..3]->(b:Person) RETURN b.name"],
    ["zero-length path", "MATCH (g:Genre)-[:ACTED_IN*0..2]->(x) RETURN x"],
    ["quantified path pattern", "MATCH (a:Person) ((x)-[:FOLLOWS]->(y)){1,3} (b:Person) RETURN b.name"],
    ["shortestPath", "MATCH p = shortestPath((a:Person)-[:ACTED_IN*]-(b:Person)) RETURN length(p)"],
  ])("accepts %s", (_kind, query) => {
    const result = validateCypher(query, schema);
    expect(result.errors).toEqual([]);
  });
});

describe("read-only checks read the parse tree, not the text", () => {
  it.each([
    "MATCH (p:Person) WHERE p.created IS NOT NULL RETURN p.created",
    "MATCH (p:Person) WHERE p.name = 'DELETE' OR p.name = \"DETACH DELETE\" RETURN p.name",
    "MATCH (p:Person) RETURN p.set AS set, 'CREATE INDEX x' AS note",
    "MATCH (p:Person) // SET p.name = 'x'\nRETURN p.name",
    "MATCH (`delete`:Person) RETURN `delete`.name",
    "MATCH (p:Person) WHERE p.name CONTAINS 'LOAD CSV' RETURN p.name AS apoc",
  ])("%s", (query) => {
    const result = validateCypher(query, schema);
    expect(result.errors).toEqual([]);
    expect(result.readOnly).toBe(true);
  });
});

describe("backticked names", () => {
  it("are unescaped before they are compared with the schema", () => {
    expect(
      validateCypher("MATCH (p:`Person`)-[:`ACTED_IN`]->(m:Movie) RETURN p.`name`", schema).errors,
    ).toEqual([]);
    expect(validateCypher("MATCH (p:`Per son`) RETURN p", schema).errors[0]).toMatch(
      /Unknown label :Per son/,
    );
  });
});
