import neo4j, { type Driver } from "neo4j-driver";
import type { Neo4jSettings } from "../../src/storage/neo4j/driver-runner.js";

/**
 * The live Neo4j that test/neo4j-server/global-setup.ts started (or NEO4J_URI named). Undefined
 * when there is none (no Java or Maven on this machine), and the live tests skip with that reason.
 */
export const liveNeo4j: Neo4jSettings | undefined = process.env.NEO4J_URI
  ? {
      uri: process.env.NEO4J_URI,
      username: process.env.NEO4J_USERNAME ?? "neo4j",
      password: process.env.NEO4J_PASSWORD ?? "",
      database: process.env.NEO4J_DATABASE || undefined,
    }
  : undefined;

export const skipReason = `skipped: no Neo4j (${process.env.KGRAG_TEST_NEO4J_SKIPPED ?? "NEO4J_URI not set"})`;

/** The environment that points the CLI (in this process) at the live Neo4j. */
export function useNeo4jEnv(settings: Neo4jSettings): void {
  process.env.KGRAG_STORAGE = "neo4j";
  process.env.NEO4J_URI = settings.uri;
  process.env.NEO4J_USERNAME = settings.username;
  process.env.NEO4J_PASSWORD = settings.password;
}

export function liveDriver(settings: Neo4jSettings): Driver {
  return neo4j.driver(settings.uri, neo4j.auth.basic(settings.username, settings.password));
}

/** Nodes and relationships in the whole database: unchanged after a refused write. */
export async function databaseCounts(driver: Driver): Promise<{ nodes: number; relationships: number }> {
  const nodes = await driver.executeQuery("MATCH (n) RETURN count(n) AS n");
  const rels = await driver.executeQuery("MATCH ()-[r]->() RETURN count(r) AS n");
  return {
    nodes: Number(nodes.records[0]?.get("n")),
    relationships: Number(rels.records[0]?.get("n")),
  };
}
