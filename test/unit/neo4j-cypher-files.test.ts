import { describe, expect, it } from "vitest";
import {
  bindCypherParams,
  loadCypher,
  parseCypherFile,
  splitStatements,
  usedParameters,
} from "../../src/cypher/cypher-files.js";
import { VECTOR_INDEX_NAMES } from "../../src/storage/neo4j/schema-setup.js";
import type { VectorNamespace } from "../../src/types.js";

const FILE = `// Finds an entity's neighbours.
// Second line of description.
// @param workspace  the workspace
// @param name  entity name
// @param limit?  how many (default 10)
MATCH (e:Entity {workspace: $workspace, name: $name})-[:RELATED]-(n)
RETURN n.name, '$notAParam' AS text // $commented
LIMIT coalesce($limit, 10)
`;

describe("parseCypherFile", () => {
  it("reads the description and the documented parameters from the header", () => {
    const statement = parseCypherFile(FILE, "explore/test");
    expect(statement.description).toBe("Finds an entity's neighbours. Second line of description.");
    expect(statement.params).toEqual([
      { name: "workspace", optional: false, description: "the workspace" },
      { name: "name", optional: false, description: "entity name" },
      { name: "limit", optional: true, description: "how many (default 10)" },
    ]);
  });

  it("refuses a file whose header does not match the parameters it uses", () => {
    expect(() => parseCypherFile(FILE.replace("// @param name  entity name\n", ""), "x")).toThrow(
      /undocumented: name/,
    );
    expect(() => parseCypherFile(`// @param unused  nothing\n${FILE}`, "x")).toThrow(
      /documented but unused: unused/,
    );
  });

  it("ignores $ inside strings and comments when finding parameters", () => {
    expect(usedParameters(FILE)).toEqual(["limit", "name", "workspace"]);
  });
});

describe("bindCypherParams", () => {
  const statement = parseCypherFile(FILE, "explore/test");

  it("passes given values and null for missing optional ones", () => {
    expect(bindCypherParams(statement, { workspace: "w", name: "Acme" })).toEqual({
      workspace: "w",
      name: "Acme",
      limit: null,
    });
  });

  it("names a missing required parameter and refuses unknown ones", () => {
    expect(() => bindCypherParams(statement, { workspace: "w" })).toThrow(/needs \$name \(entity name\)/);
    expect(() => bindCypherParams(statement, { workspace: "w", name: "A", nmae: "B" })).toThrow(
      /takes no parameter \$nmae/,
    );
  });
});

describe("splitStatements", () => {
  it("splits a schema script at line-ending semicolons and drops comment lines", () => {
    const script =
      "// header\nCREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\n// note\nCREATE INDEX b\nFOR (n:B) ON (n.y);\n";
    expect(splitStatements(script)).toEqual([
      "CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x)",
      "CREATE INDEX b\nFOR (n:B) ON (n.y)",
    ]);
  });
});

describe("shipped statements", () => {
  it("load by name, cached", () => {
    expect(loadCypher("store/entities-upsert")).toBe(loadCypher("store/entities-upsert"));
    expect(() => loadCypher("store/no-such-statement")).toThrow(
      /No Cypher statement "store\/no-such-statement"/,
    );
  });

  it.each(Object.entries(VECTOR_INDEX_NAMES))("name the %s vector index as the store does", (ns, name) => {
    expect(loadCypher(`schema/vector-index-${ns}`).text).toContain(`VECTOR INDEX ${name} `);
    expect(loadCypher(`store/vectors/${ns as VectorNamespace}/ann`).text).toContain(`'${name}'`);
  });
});
