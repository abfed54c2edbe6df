import { type Driver, Neo4jError } from "neo4j-driver";
import { describe, expect, it } from "vitest";
import { DriverRunner } from "../../src/storage/neo4j/driver-runner.js";

const settings = { uri: "bolt://127.0.0.1:7687", username: "neo4j", password: "secret" };
const statement = {
  name: "schema/vector-index-chunks",
  text: "CREATE VECTOR INDEX kgrag_chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding",
  params: {},
};

/** A driver whose every query fails with `error`, as Neo4j answers the loser of a schema race. */
function failingDriver(error: Error): Driver {
  return {
    executeQuery: async () => {
      throw error;
    },
  } as unknown as Driver;
}

describe("schema statements of two processes at once", () => {
  it("take an index created meanwhile by another process as created", async () => {
    const runner = new DriverRunner(
      failingDriver(
        new Neo4jError(
          "An equivalent index already exists, 'Index( id=31, name='kgrag_chunk_embedding', type='VECTOR' )'.",
          "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
          "22N71",
          "error: data exception",
        ),
      ),
      settings,
    );
    await expect(runner.schema(statement)).resolves.toEqual([]);
  });

  it("still fail on any other schema error", async () => {
    const conflict = new Neo4jError(
      "There already exists an index called 'kgrag_chunk_embedding'.",
      "Neo.ClientError.Schema.IndexWithNameAlreadyExists",
      "22N71",
      "error: data exception",
    );
    const runner = new DriverRunner(failingDriver(conflict), settings);
    await expect(runner.schema(statement)).rejects.toBe(conflict);
  });
});
