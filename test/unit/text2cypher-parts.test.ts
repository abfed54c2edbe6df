import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import neo4j from "neo4j-driver";
import { describe, expect, it } from "vitest";
import { cleanGeneratedCypher } from "../../src/cypher/clean-cypher.js";
import { type ExplainSession, explainIsReadOnly } from "../../src/cypher/explain-check.js";
import { text2CypherSetup } from "../../src/cypher/live-cypher.js";
import { routeQuestion } from "../../src/cypher/routing.js";
import { loadSchema, parseGraphSchema, saveSchema } from "../../src/cypher/schema.js";
import { cypherType, introspectWith, relTypeName } from "../../src/cypher/schema-introspect.js";
import { renderSchema } from "../../src/cypher/schema-render.js";
import { GRAPH_MODEL } from "../../src/storage/neo4j/graph-model.js";

describe("cleanGeneratedCypher", () => {
  const query = "MATCH (p:Person)\nRETURN p.name";
  it.each([
    ["a bare query with a semicolon", `${query};`],
    ["a cypher fence", `\`\`\`cypher\n${query}\n\`\`\``],
    ["an untagged fence inside prose", `Sure! Here it is:\n\`\`\`\n${query};\n\`\`\`\nIt returns names.`],
    [
      "a label and trailing prose",
      `Cypher: MATCH (p:Person)\nRETURN p.name\n\nThis query lists every person.`,
    ],
    ["prose before the query", `The query is:\n${query}`],
  ])("%s", (_kind, reply) => {
    expect(cleanGeneratedCypher(reply)).toEqual({ kind: "cypher", cypher: query });
  });

  it("prefers the cypher-tagged fence", () => {
    const reply = `\`\`\`text\nnot this\n\`\`\`\n\`\`\`cypher\n${query}\n\`\`\``;
    expect(cleanGeneratedCypher(reply)).toEqual({ kind: "cypher", cypher: query });
  });

  it("keeps a write so that the validator can refuse it", () => {
    expect(cleanGeneratedCypher("Run this:\nMATCH (p) DETACH DELETE p;")).toEqual({
      kind: "cypher",
      cypher: "MATCH (p) DETACH DELETE p",
    });
  });

  it("recognises the NO_CYPHER signal", () => {
    expect(cleanGeneratedCypher("NO_CYPHER: themes are not stored")).toEqual({
      kind: "no-cypher",
      reason: "themes are not stored",
    });
  });
});

describe("routeQuestion", () => {
  it.each([
    "What are the main themes in these documents?",
    "Summarize the corpus",
    "Give me an overview of the collection",
    "What is this corpus about?",
  ])("sends %s to GraphRAG", (question) => {
    expect(routeQuestion(question)).toBe("rag");
  });

  it.each([
    "How many documents mention Alice?",
    "Which people are linked to both Alice and Bob?",
    "Who directed The Matrix?",
  ])("keeps %s on Cypher", (question) => {
    expect(routeQuestion(question)).toBe("cypher");
  });
});

const big = parseGraphSchema({
  nodeProperties: Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `Thing${i}`,
      { name: "STRING", description: "STRING", weight: "FLOAT" },
    ]),
  ),
  patterns: [
    ...Array.from({ length: 59 }, (_, i) => ({
      start: `Thing${i}`,
      type: `LINK_${i}`,
      end: `Thing${i + 1}`,
    })),
  ],
});

describe("renderSchema", () => {
  it("renders labels, properties, patterns and sample values compactly", () => {
    const schema = parseGraphSchema({
      nodeProperties: { Person: { name: "STRING" }, Movie: { title: "STRING", genre: "STRING" } },
      relationshipProperties: { ACTED_IN: { roles: "LIST<STRING>" } },
      patterns: [{ start: "Person", type: "ACTED_IN", end: "Movie" }],
      relationshipTypes: ["ORPHAN"],
      sampleValues: { Movie: { genre: ["drama", "sci-fi"] } },
    });
    expect(renderSchema(schema)).toBe(
      [
        "Node labels and properties:",
        "(:Person {name: STRING})",
        "(:Movie {title: STRING, genre: STRING})",
        "Relationships (start)-[:TYPE]->(end), directions as stored:",
        "(:Person)-[:ACTED_IN {roles: LIST<STRING>}]->(:Movie)",
        "[:ORPHAN] (endpoints unknown)",
        "Known values of some properties:",
        'Movie.genre: "drama", "sci-fi"',
      ].join("\n"),
    );
  });

  it("trims a large schema to the labels the question names and their neighbours", () => {
    const full = renderSchema(big);
    const trimmed = renderSchema(big, "Which Thing7 items have the highest weight?", { maxTokens: 300 });
    expect(trimmed.length).toBeLessThan(full.length / 5);
    expect(trimmed).toContain("(:Thing7 {");
    expect(trimmed).toContain("(:Thing6)-[:LINK_6]->(:Thing7)");
    expect(trimmed).toContain("(:Thing7)-[:LINK_7]->(:Thing8)");
    expect(trimmed).not.toContain("(:Thing30 {");
    expect(trimmed).toMatch(/Schema trimmed to the parts relevant to the question; other labels: Thing0, /);
  });

  it("keeps the whole schema when it fits or when the question names nothing in it", () => {
    expect(renderSchema(big, "Which Thing7 items?", { maxTokens: 100_000 })).toBe(renderSchema(big));
    expect(renderSchema(big, "hello there", { maxTokens: 300 })).toBe(renderSchema(big));
  });
});

describe("explainIsReadOnly", () => {
  const planning = (queryType: string) => {
    const seen: string[] = [];
    const session: ExplainSession = {
      run: (query) => {
        seen.push(query);
        return { summary: async () => ({ queryType }) };
      },
    };
    return { session, seen };
  };

  it("accepts only the read-only query type and never runs the query itself", async () => {
    const read = planning("r");
    expect(await explainIsReadOnly(read.session, "MATCH (n) RETURN n")).toEqual({
      readOnly: true,
      queryType: "r",
    });
    expect(read.seen).toEqual(["EXPLAIN MATCH (n) RETURN n"]);
    for (const queryType of ["rw", "w", "s"]) {
      expect((await explainIsReadOnly(planning(queryType).session, "MATCH (n) RETURN n")).readOnly).toBe(
        false,
      );
    }
  });

  it("counts a refusal to plan in read mode as not read-only, and passes other errors on", async () => {
    const failing = (code: string): ExplainSession => ({
      run: () => ({
        summary: async () => {
          throw Object.assign(new Error("refused"), { code });
        },
      }),
    });
    const verdict = await explainIsReadOnly(failing("Neo.ClientError.Statement.AccessMode"), "CREATE (n)");
    expect(verdict).toEqual({ readOnly: false, queryType: "w" });
    await expect(explainIsReadOnly(failing("Neo.ClientError.Statement.SyntaxError"), "MATC")).rejects.toThrow(
      "refused",
    );
  });
});

describe("text2CypherSetup on kgrag's own graph", () => {
  const model = parseGraphSchema(GRAPH_MODEL);

  it("adds the workspace note and parameter and hides bookkeeping labels and vectors", () => {
    const { schema, options } = text2CypherSetup(model, { workspace: "ws-1" });
    expect(options.parameters).toEqual({ workspace: "ws-1" });
    expect(options.instructions).toMatch(/workspace: \$workspace/);
    expect(schema.labels).toEqual(["Document", "Chunk", "Entity", "Community"]);
    expect(schema.relationshipTypes).not.toContain("HAS_RELATION_MENTION");
    expect(schema.nodeProperties.Entity).not.toHaveProperty("embedding");
    expect(schema.relationshipProperties.RELATED).toHaveProperty("weight");
    expect(renderSchema(schema)).not.toMatch(/LlmCache|embedding/);
  });

  it("leaves out a graph of the user's own in the same database (asked with --external)", () => {
    const shared = parseGraphSchema({
      ...GRAPH_MODEL,
      patterns: [...GRAPH_MODEL.patterns, { start: "Person", type: "ACTED_IN", end: "Movie" }],
      nodeProperties: { ...GRAPH_MODEL.nodeProperties, Person: { name: "STRING" } },
    });
    const { schema } = text2CypherSetup(shared, { workspace: "ws-1" });
    expect(schema.labels).toEqual(["Document", "Chunk", "Entity", "Community"]);
    expect(schema.relationshipTypes).not.toContain("ACTED_IN");
    expect(schema.nodeProperties).not.toHaveProperty("Person");
    expect(renderSchema(schema)).not.toMatch(/Person|Movie|ACTED_IN/);
  });

  it("leaves any other graph as it is", () => {
    const movies = parseGraphSchema({ patterns: [{ start: "Person", type: "ACTED_IN", end: "Movie" }] });
    expect(text2CypherSetup(movies, { workspace: "ws-1" })).toEqual({
      schema: movies,
      options: { validation: { allowProcedures: [] } },
    });
  });
});

describe("schema files", () => {
  it("round-trip, and a short hand-written schema is completed from its patterns", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-schema-"));
    const path = join(dir, "schema.json");
    writeFileSync(path, JSON.stringify({ patterns: [{ start: "A", type: "R", end: "B" }] }));
    const schema = await loadSchema(path);
    expect(schema).toMatchObject({ labels: ["A", "B"], relationshipTypes: ["R"], nodeProperties: {} });
    await saveSchema(path, schema);
    expect(await loadSchema(path)).toEqual(schema);
  });

  it("say what is wrong with a bad file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-schema-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ labels: "Person" }));
    writeFileSync(join(dir, "broken.json"), "{ not json");
    await expect(loadSchema(join(dir, "bad.json"))).rejects.toThrow(
      /is not a kgrag graph schema[\s\S]*labels/,
    );
    await expect(loadSchema(join(dir, "broken.json"))).rejects.toThrow(/is not valid JSON/);
    await expect(loadSchema(join(dir, "missing.json"))).rejects.toThrow(/Cannot read the schema file/);
  });
});

describe("introspection from recorded procedure rows", () => {
  /** What Neo4j 5 returns for a small movies graph (driver values: Integer for counts). */
  const recorded: Record<string, Record<string, unknown>[]> = {
    "db.labels()": [{ label: "Movie" }, { label: "Person" }],
    "db.relationshipTypes() YIELD relationshipType\nRETURN": [
      { relationshipType: "ACTED_IN" },
      { relationshipType: "FOLLOWS" },
    ],
    "db.schema.nodeTypeProperties()": [
      { nodeLabels: ["Person"], propertyName: "name", propertyTypes: ["String"] },
      { nodeLabels: ["Person"], propertyName: "born", propertyTypes: ["Long"] },
      { nodeLabels: ["Movie"], propertyName: "title", propertyTypes: ["String"] },
      { nodeLabels: ["Movie"], propertyName: "genre", propertyTypes: ["String"] },
      { nodeLabels: ["Movie"], propertyName: "ratings", propertyTypes: ["DoubleArray"] },
    ],
    "db.schema.relTypeProperties()": [
      { relType: ":`ACTED_IN`", propertyName: "roles", propertyTypes: ["StringArray"] },
      { relType: ":`FOLLOWS`", propertyName: null, propertyTypes: null },
    ],
    "type(r) = relationshipType": [
      { start: "Person", type: "ACTED_IN", end: "Movie" },
      { start: "Person", type: "FOLLOWS", end: "Person" },
    ],
  };
  const sampled: Record<string, Record<string, unknown>[]> = {
    Person: [{ property: "name", seen: neo4j.int(40), distinctValues: neo4j.int(40), values: ["A", "B"] }],
    Movie: [
      { property: "title", seen: neo4j.int(30), distinctValues: neo4j.int(30), values: ["M1"] },
      {
        property: "genre",
        seen: neo4j.int(30),
        distinctValues: neo4j.int(3),
        values: ["drama", "sci-fi", "comedy"],
      },
    ],
  };

  it("builds the schema.json shape with Cypher type names, patterns and categorical values", async () => {
    const calls: { cypher: string; params: Record<string, unknown> }[] = [];
    const schema = await introspectWith(async (cypher, params = {}) => {
      calls.push({ cypher, params });
      if (cypher.includes("$label IN labels(n)")) return sampled[String(params.label)] ?? [];
      const key = Object.keys(recorded).find((k) => cypher.includes(k));
      if (!key) throw new Error(`unexpected introspection query: ${cypher}`);
      return recorded[key] ?? [];
    });
    expect(schema).toEqual({
      labels: ["Movie", "Person"],
      relationshipTypes: ["ACTED_IN", "FOLLOWS"],
      nodeProperties: {
        Person: { name: "STRING", born: "INTEGER" },
        Movie: { title: "STRING", genre: "STRING", ratings: "LIST<FLOAT>" },
      },
      relationshipProperties: { ACTED_IN: { roles: "LIST<STRING>" }, FOLLOWS: {} },
      patterns: [
        { start: "Person", type: "ACTED_IN", end: "Movie" },
        { start: "Person", type: "FOLLOWS", end: "Person" },
      ],
      sampleValues: { Movie: { genre: ["drama", "sci-fi", "comedy"] } },
    });
    const sample = calls.find((c) => c.params.label === "Movie");
    expect(sample?.params.properties).toEqual(["title", "genre"]);
    expect(neo4j.isInt(sample?.params.sampleSize)).toBe(true);
    expect(calls.every((c) => !/apoc\./i.test(c.cypher))).toBe(true);
  });

  it("maps procedure type names and relationship type names", () => {
    expect(cypherType(["Long", "String"])).toBe("INTEGER | STRING");
    expect(cypherType(["LocalDateTimeArray"])).toBe("LIST<LOCAL DATETIME>");
    expect(cypherType(null)).toBe("ANY");
    expect(relTypeName(":`WORKS AT`")).toBe("WORKS AT");
  });
});
