import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type GraphSchema, parseGraphSchema } from "../../src/cypher/schema.js";
import { validateCypher } from "../../src/cypher/validator.js";
import { GRAPH_MODEL } from "../../src/storage/neo4j/graph-model.js";
import { packagePath } from "../../src/util/paths.js";

/** The Neo4j "movies" demo graph, plus a `created` property to prove no keyword false positive. */
const movies: GraphSchema = (() => {
  const schema = parseGraphSchema(
    JSON.parse(readFileSync(packagePath("bench/fixtures/movies-schema.json"), "utf8")),
  );
  return {
    ...schema,
    nodeProperties: {
      ...schema.nodeProperties,
      Person: { ...schema.nodeProperties.Person, created: "STRING" },
    },
  };
})();
const kgrag = parseGraphSchema(GRAPH_MODEL);

const errorsOf = (query: string, schema: GraphSchema = movies) => validateCypher(query, schema).errors;

describe("validateCypher accepts valid read queries", () => {
  it.each([
    "MATCH (p:Person)-[:ACTED_IN]->(m:Movie {title: 'The Matrix'}) RETURN p.name AS actor",
    "MATCH (m:Movie)<-[:DIRECTED]-(d:Person) RETURN d.name, count(m) AS n ORDER BY n DESC LIMIT 5",
    "MATCH (p:Person)-[r:REVIEWED]->(m:Movie) WHERE r.rating > 80 RETURN m.title, r.summary",
    "MATCH (a:Person)-[:FOLLOWS]-(b:Person) RETURN a.name, b.name",
    "MATCH (p:Person) WHERE p.created = 'DELETE' AND p.name CONTAINS 'SET' RETURN p.created AS created",
    "MATCH (p:Person) RETURN p.name, COUNT { (p)-[:ACTED_IN]->(:Movie) } AS roles",
    "MATCH (m:Movie) RETURN m.title, [(m)<-[:ACTED_IN]-(p:Person) | p.name] AS cast",
    "MATCH path = shortestPath((a:Person {name: 'A'})-[:ACTED_IN*..6]-(b:Person {name: 'B'})) RETURN length(path)",
    "MATCH (a:Person)-[:FOLLOWS]->{1,3}(b:Person) RETURN DISTINCT b.name",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName RETURN nodeLabels, propertyName",
    "WITH {title: 'x'} AS row RETURN row.whatever",
    // Read-only introspection: Neo4j plans DBMS procedures as schema writes, these only report.
    "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition",
    "CALL dbms.info()",
    "CALL db.schema.visualization()",
    "SHOW PROCEDURES YIELD name, mode WHERE mode = 'READ' RETURN name",
    "SHOW FUNCTIONS",
    "SHOW INDEXES",
    "SHOW UNIQUE CONSTRAINTS",
  ])("%s", (query) => {
    const result = validateCypher(query, movies);
    expect(result.errors).toEqual([]);
    expect(result).toMatchObject({ valid: true, readOnly: true });
  });

  it.each([
    "MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.name = 'Alice' RETURN d.title, count(c)",
    "MATCH (c:Chunk)-[:NEXT_CHUNK]->(n:Chunk) RETURN c.id, n.id LIMIT 10",
    "MATCH (a:Entity)-[r:RELATED]-(b:Entity) WHERE a.name = 'Alice' RETURN b.name, r.description, r.weight",
    "MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community)-[:PARENT]->(p:Community) RETURN e.name, c.title, p.level",
    "MATCH (e:Entity) RETURN e.type AS type, count(*) AS entities ORDER BY entities DESC",
    "CALL db.index.vector.queryNodes('entity_embedding', 5, [0.1, 0.2]) YIELD node, score RETURN node.name, score",
    "CALL db.index.fulltext.queryNodes('chunk_text', 'alice') YIELD node RETURN node.id",
  ])("kgrag graph model: %s", (query) => {
    expect(errorsOf(query, kgrag)).toEqual([]);
  });
});

describe("validateCypher rejects", () => {
  it("broken syntax, with the front end's message and position", () => {
    const result = validateCypher("MATCH (p:Person RETURN p.name", movies);
    expect(result.valid).toBe(false);
    expect(result.errors[0]).toMatch(/Invalid input.*\(column \d+\)/);
  });

  it("an unknown label, naming the labels that exist", () => {
    expect(errorsOf("MATCH (f:Film) RETURN f.title")).toEqual([
      "Unknown label :Film (the schema has Person, Movie)",
    ]);
    expect(errorsOf("MATCH (p) WHERE p:Actor RETURN p.name")[0]).toMatch(/Unknown label :Actor/);
  });

  it("an unknown relationship type", () => {
    expect(errorsOf("MATCH (p:Person)-[:STARRED_IN]->(m:Movie) RETURN m.title")).toEqual([
      expect.stringMatching(/^Unknown relationship type :STARRED_IN \(the schema has ACTED_IN, DIRECTED/),
    ]);
    expect(errorsOf("MATCH (:Entity)-[:LINKS_TO]->(:Entity) RETURN 1", kgrag)[0]).toMatch(/:LINKS_TO/);
  });

  it("unknown properties on labelled nodes, relationships, maps in patterns and projections", () => {
    expect(errorsOf("MATCH (m:Movie) RETURN m.year")).toEqual([
      "Unknown property (:Movie).year (its properties: released, tagline, title)",
    ]);
    expect(errorsOf("MATCH (p:Person)-[r:ACTED_IN]->(:Movie) RETURN r.rating")[0]).toMatch(
      /\[:ACTED_IN\]\.rating \(its properties: roles\)/,
    );
    expect(errorsOf("MATCH (p:Person {fullName: 'x'}) RETURN p")[0]).toMatch(/\(:Person\)\.fullName/);
    expect(errorsOf("MATCH (p:Person) RETURN p {.name, .age}")[0]).toMatch(/\(:Person\)\.age/);
    expect(errorsOf("MATCH (n) RETURN n.nickname")[0]).toMatch(
      /nickname: no node label in the schema has it/,
    );
    expect(errorsOf("MATCH (e:Entity) RETURN e.title", kgrag)[0]).toMatch(/\(:Entity\)\.title/);
  });

  it("a relationship's property read off a node, naming where the property lives", () => {
    // Neo4j runs these and returns null: the movies dev set's gold has p.rating for r.rating.
    expect(errorsOf("MATCH (p:Person)-[:REVIEWED]->(m:Movie) RETURN max(p.rating)")).toEqual([
      "Unknown property (:Person).rating (its properties: born, created, name); " +
        "rating is a property of [:REVIEWED]",
    ]);
    expect(errorsOf("MATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN p.roles")[0]).toMatch(
      /\(:Person\)\.roles .*; roles is a property of \[:ACTED_IN\]$/,
    );
    expect(errorsOf("MATCH (p:Person)-[r:ACTED_IN]->(m:Movie) RETURN r.title")[0]).toMatch(
      /\[:ACTED_IN\]\.title .*; title is a property of \(:Movie\)$/,
    );
    // Names every object has (toString) are not mistaken for schema properties.
    expect(errorsOf("MATCH (p:Person) RETURN p.toString")).toEqual([
      "Unknown property (:Person).toString (its properties: born, created, name)",
    ]);
  });

  it("a relationship drawn against its stored direction", () => {
    expect(errorsOf("MATCH (m:Movie)-[:ACTED_IN]->(p:Person) RETURN p.name")).toEqual([
      "Wrong relationship direction or endpoints: (:Movie)-[:ACTED_IN]->(:Person) does not exist; " +
        "the schema only has (:Person)-[:ACTED_IN]->(:Movie)",
    ]);
    expect(errorsOf("MATCH (e:Entity)-[:MENTIONS]->(c:Chunk) RETURN c.id", kgrag)[0]).toMatch(
      /the schema only has \(:Chunk\)-\[:MENTIONS\]->\(:Entity\)/,
    );
  });

  it.each([
    ["CREATE (p:Person {name: 'X'})", /CREATE writes/],
    ["MERGE (p:Person {name: 'X'}) RETURN p", /MERGE writes/],
    ["MATCH (p:Person) SET p.name = 'X'", /SET writes/],
    ["MATCH (p:Person) DELETE p", /DELETE writes/],
    ["MATCH (p:Person) DETACH DELETE p", /DETACH DELETE writes/],
    ["MATCH (p:Person) REMOVE p.born", /REMOVE writes/],
    ["MATCH (p:Person) FOREACH (x IN [1] | SET p.born = x)", /FOREACH/],
    ["LOAD CSV WITH HEADERS FROM 'https://example.com/a.csv' AS row RETURN row", /LOAD CSV reads files/],
    ["CALL () { MATCH (p:Person) RETURN p } IN TRANSACTIONS RETURN count(*)", /IN TRANSACTIONS/],
    ["CREATE INDEX person_name FOR (p:Person) ON (p.name)", /schema and administration commands/],
    ["DROP INDEX person_name", /schema and administration commands/],
    ["CREATE CONSTRAINT FOR (p:Person) REQUIRE p.name IS UNIQUE", /schema and administration commands/],
    ["CREATE USER bob SET PASSWORD 'secret123'", /schema and administration commands/],
    ["SHOW SETTINGS", /SHOW SETTINGS is not among the read-only SHOW commands/],
    ["SHOW TRANSACTIONS", /SHOW TRANSACTIONS is not among the read-only SHOW commands/],
    ["TERMINATE TRANSACTIONS 'neo4j-transaction-7'", /TERMINATE stops running transactions/],
    ["CALL dbms.listConfig() YIELD name RETURN name", /procedure dbms\.listConfig is not on the allow list/],
    [
      "CALL apoc.load.json('https://example.com/x') YIELD value RETURN value",
      /APOC procedure apoc\.load\.json/,
    ],
    ["MATCH (p:Person) RETURN apoc.text.join([p.name], ',')", /APOC function/],
    ["CALL dbms.killQuery('query-1')", /procedure dbms\.killQuery is not on the allow list/],
    ["CALL gds.pageRank.stream('g') YIELD nodeId RETURN nodeId", /gds\.pageRank\.stream/],
  ])("every write or unlisted call: %s", (query, reason) => {
    const result = validateCypher(query, movies);
    expect(result.valid).toBe(false);
    expect(result.readOnly).toBe(false);
    expect(result.errors.join("\n")).toMatch(reason);
  });

  it("a write hidden in a subquery", () => {
    const result = validateCypher("MATCH (p:Person) CALL (p) { SET p.seen = true } RETURN p.name", movies);
    expect(result.readOnly).toBe(false);
  });

  it("several statements, EXPLAIN prefixes, USE and undeclared parameters", () => {
    expect(errorsOf("MATCH (p:Person) RETURN p.name; MATCH (m:Movie) RETURN m.title")).toContain(
      "Only one statement is allowed (found several separated by ;)",
    );
    expect(errorsOf("EXPLAIN MATCH (p:Person) RETURN p.name")[0]).toMatch(/EXPLAIN prefix is not allowed/);
    expect(errorsOf("USE other MATCH (p:Person) RETURN p.name").join()).toMatch(/USE is not allowed/);
    expect(errorsOf("MATCH (p:Person {name: $name}) RETURN p.born")[0]).toMatch(
      /Parameter \$name is not defined/,
    );
  });
});

describe("validateCypher options and edges", () => {
  it("accepts declared parameters, or any parameter with a warning", () => {
    const query = "MATCH (p:Person {name: $name}) RETURN p.born";
    expect(validateCypher(query, movies, { parameters: ["name"] }).valid).toBe(true);
    const loose = validateCypher(query, movies, { parameters: "any" });
    expect(loose.valid).toBe(true);
    expect(loose.warnings[0]).toMatch(/supplied at run time/);
  });

  it("accepts extra allowed procedures", () => {
    const query = "CALL db.info() YIELD name RETURN name";
    expect(validateCypher(query, movies).valid).toBe(false);
    expect(validateCypher(query, movies, { allowProcedures: ["db.info"] }).valid).toBe(true);
  });

  it("checks syntax and read-only rules without a schema", () => {
    expect(validateCypher("MATCH (x:Anything) RETURN x.whatever", null).valid).toBe(true);
    expect(validateCypher("MATCH (x) DELETE x", null).readOnly).toBe(false);
  });

  it("refuses an empty query and keeps a trailing semicolon to one statement", () => {
    expect(validateCypher("  ", movies)).toMatchObject({ valid: false, errors: ["The query is empty"] });
    expect(validateCypher("MATCH (m:Movie) RETURN m.title;", movies).valid).toBe(true);
  });

  it("reports deprecations as warnings, not errors", () => {
    const result = validateCypher("MATCH (p:Person) RETURN id(p)", movies);
    expect(result.valid).toBe(true);
    expect(result.warnings.join()).toMatch(/deprecated/);
  });

  it("skips direction checks, with a warning, when the schema lists no patterns", () => {
    const flat = { ...movies, patterns: [] };
    const result = validateCypher("MATCH (m:Movie)-[:ACTED_IN]->(p:Person) RETURN p.name", flat);
    expect(result.valid).toBe(true);
    expect(result.warnings).toContain("The schema lists no patterns: directions were not checked");
  });
});
