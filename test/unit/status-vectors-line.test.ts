import { describe, expect, it } from "vitest";
import { vectorsLine } from "../../src/cli/actions/status.js";

describe("kgrag status: the vectors line", () => {
  it("names a Neo4j namespace's vector index with its dimension and state, as SQLite's line names its files", () => {
    const line = vectorsLine([
      {
        namespace: "chunks",
        kind: "neo4j",
        vectors: 12000,
        fresh: true,
        neo4jIndex: {
          name: "kgrag_chunk_embedding",
          state: "ONLINE",
          populationPercent: 100,
          dimension: 384,
        },
      },
      {
        namespace: "entities",
        kind: "neo4j",
        vectors: 9000,
        fresh: false,
        neo4jIndex: {
          name: "kgrag_entity_embedding",
          state: "POPULATING",
          populationPercent: 41.6,
          dimension: 384,
        },
      },
      { namespace: "relationships", kind: "exact", vectors: 300, fresh: true },
    ]);
    expect(line).toBe(
      "vectors: chunks 12000 neo4j index kgrag_chunk_embedding 384-d ONLINE; " +
        "entities 9000 neo4j index kgrag_entity_embedding 384-d POPULATING 42%; relationships 300 exact",
    );
  });
});
