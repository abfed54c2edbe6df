import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import type { DbSchema, Neo4jFunction, Neo4jProcedure } from "@neo4j-cypher/language-support";
import { describe, expect, it } from "vitest";
import { listCypherFiles, loadCypher } from "../../src/cypher/cypher-files.js";
import { checkDirections } from "../../src/cypher/directions.js";
import { parseCypherTree } from "../../src/cypher/parse-tree.js";
import { parseGraphSchema } from "../../src/cypher/schema.js";
import { GRAPH_MODEL, modelPropertyKeys } from "../../src/storage/neo4j/graph-model.js";
import { packagePath } from "../../src/util/paths.js";

/**
 * Lints every statement in cypher/ with Neo4j's own Cypher front end, against kgrag's graph model
 * (labels, relationship types, properties, directions) and the built-in functions and procedures of
 * a Neo4j 5 server, without APOC or GDS: our code must not need either plugin.
 */

// Through `require`, as src/cypher/language-support.ts loads it: an `import` would make vitest
// transform the package's 40 MB ES module build (which Node cannot load as it is) for this file.
const { lintCypherQuery, testData } = createRequire(import.meta.url)(
  "@neo4j-cypher/language-support",
) as typeof import("@neo4j-cypher/language-support");

type Registry<T> = Record<string, T>;

function withoutPlugins<T>(registry: Registry<T> | undefined): Registry<T> {
  return Object.fromEntries(
    Object.entries(registry ?? {}).filter(([name]) => !name.startsWith("apoc.") && !name.startsWith("gds.")),
  );
}

/** The package ships the function and procedure catalogue of a real server as its test data. */
const catalogue = testData.mockSchema;
const functions = withoutPlugins<Neo4jFunction>(catalogue.functions?.["CYPHER 5"]);
const procedures = withoutPlugins<Neo4jProcedure>(catalogue.procedures?.["CYPHER 5"]);

function schemaFor(parameters: string[]): DbSchema {
  return {
    labels: GRAPH_MODEL.labels,
    relationshipTypes: GRAPH_MODEL.relationshipTypes,
    propertyKeys: modelPropertyKeys(),
    parameters: Object.fromEntries(parameters.map((name) => [name, null])),
    functions: { "CYPHER 5": functions },
    procedures: { "CYPHER 5": procedures },
    defaultLanguage: "CYPHER 5",
  };
}

const modelSchema = parseGraphSchema(GRAPH_MODEL, "the graph model");

/** Neo4j's diagnostics, then kgrag's own direction check (that version of the linter has none). */
function lint(text: string, parameters: string[]): string[] {
  const diagnostics = lintCypherQuery(text, schemaFor(parameters)).map(
    (d) => `${d.severity === 1 ? "error" : "warning"} at line ${d.range.start.line + 1}: ${d.message}`,
  );
  const directions = checkDirections(parseCypherTree(text), modelSchema).map((e) => `error: ${e}`);
  return [...diagnostics, ...directions];
}

const names = listCypherFiles();

describe("the linter itself", () => {
  it("catches a syntax error, an unknown label, a reversed direction and an undocumented parameter", () => {
    expect(lint("MATCH (e:Entity RETURN e", [])[0]).toMatch(/^error/);
    expect(lint("MATCH (e:Entty {workspace: $workspace}) RETURN e.key", ["workspace"]).join()).toMatch(
      /Entty is not present/,
    );
    expect(lint("MATCH (e:Entity)-[:MENTIONS]->(c:Chunk) RETURN c.id", []).join()).toMatch(/MENTIONS/);
    expect(lint("MATCH (e:Entity {key: $key}) RETURN e.name", []).join()).toMatch(
      /Parameter \$key is not defined/,
    );
  });

  it("refuses APOC, which our code must not need", () => {
    expect(lint("CALL apoc.meta.data() YIELD label RETURN label", []).join()).toMatch(
      /^error.*apoc\.meta\.data/,
    );
  });
});

describe("cypher/ statements", () => {
  it("exist for the store, its schema and exploration", () => {
    expect(names.filter((n) => n.startsWith("store/")).length).toBeGreaterThan(40);
    expect(names.filter((n) => n.startsWith("schema/")).length).toBeGreaterThan(5);
    expect(names.filter((n) => n.startsWith("explore/"))).toEqual([
      "explore/community-members-and-report",
      "explore/entity-neighbourhood",
      "explore/entity-sources",
      "explore/shortest-path",
      "explore/top-entities-by-degree",
    ]);
  });

  it.each(names)("%s lints clean against the graph model", (name) => {
    const statement = loadCypher(name);
    expect(
      lint(
        statement.text,
        statement.params.map((p) => p.name),
      ),
    ).toEqual([]);
  });

  it.each(names)("%s documents what it does", (name) => {
    expect(loadCypher(name).description.length).toBeGreaterThan(20);
  });

  it.each(names.filter((n) => n.startsWith("store/")))("%s filters by workspace", (name) => {
    expect(loadCypher(name).params.map((p) => p.name)).toContain("workspace");
  });
});

/** Lines of TypeScript (comments aside) that look like a Cypher clause with a pattern or a batch. */
const INLINE_CYPHER = [
  /\b(?:OPTIONAL\s+)?MATCH\s*\(/,
  /\bMERGE\s*\(/,
  /\bCREATE\s*\(/,
  /\bUNWIND\s+\$/,
  /\bDETACH\s+DELETE\b/,
  /\bCALL\s+db\.index\./,
];

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) return typeScriptFiles(full);
    return entry.endsWith(".ts") ? [full] : [];
  });
}

describe("no inline Cypher", () => {
  it("no src/ file spells a Cypher statement: they live in cypher/", () => {
    const offenders: string[] = [];
    for (const file of typeScriptFiles(packagePath("src"))) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          const code = line.trim();
          if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return;
          if (INLINE_CYPHER.some((pattern) => pattern.test(code))) {
            offenders.push(`${relative(packagePath(), file)}:${index + 1}: ${code}`);
          }
        });
    }
    expect(offenders).toEqual([]);
  });
});
