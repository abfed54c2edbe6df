import neo4j, { type Driver } from "neo4j-driver";
import { configFromEnv } from "../../src/config.js";
import type { KgragServices } from "../../src/services.js";
import { Neo4jConnection } from "../../src/storage/neo4j/connection.js";
import { DriverRunner } from "../../src/storage/neo4j/driver-runner.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";

/**
 * A Neo4j driver that only answers the read-only Cypher runner: EXPLAIN with the queryType
 * `planOf` gives (standing in for a plugin such as APOC, which the test server lacks), any other
 * query with one row {n: 1}. It records what reached it, EXPLAINs and runs apart.
 */
export function planScriptedDriver(planOf: (query: string) => string) {
  const explained: string[] = [];
  const ran: string[] = [];
  const tx = {
    run(query: string) {
      if (query.startsWith("EXPLAIN ")) {
        const text = query.slice("EXPLAIN ".length);
        explained.push(text);
        return Promise.resolve({ summary: { queryType: planOf(text) } });
      }
      ran.push(query);
      return {
        async *[Symbol.asyncIterator]() {
          yield new neo4j.types.Record(["n"], [1]);
        },
        keys: async () => ["n"],
      };
    },
  };
  const session = {
    executeRead: async <T>(work: (transaction: typeof tx) => Promise<T> | T) => work(tx),
    close: async () => {},
  };
  // Schema introspection (driver.executeQuery) finds an empty database.
  const executeQuery = async () => ({ records: [] });
  const driver = { session: () => session, executeQuery } as unknown as Driver;
  return { driver, explained, ran };
}

/** A Neo4j store over that driver (nothing is sent at construction). */
export function planScriptedStore(driver: Driver, workspace = "ws"): Neo4jGraphStore {
  const runner = new DriverRunner(driver, { uri: "bolt://fake:7687", username: "neo4j", password: "x" });
  return new Neo4jGraphStore(new Neo4jConnection(runner, workspace));
}

/** The config of a Neo4j workspace with `readOnlyProcedures` set. */
export function neo4jConfig(readOnlyProcedures: string[]): KgragServices["config"] {
  return configFromEnv(
    {},
    { storage: "neo4j", neo4j: { uri: "bolt://fake:7687", password: "x", readOnlyProcedures } },
  );
}
