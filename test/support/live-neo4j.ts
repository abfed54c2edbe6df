import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import neo4j, { type Driver } from "neo4j-driver";
import { inject } from "vitest";
import type { Neo4jSettings } from "../../src/storage/neo4j/driver-runner.js";
import type { GivenNeo4j } from "../neo4j-server/given-neo4j.js";
import { START_TIMEOUT_MS } from "../neo4j-server/test-neo4j.js";

/** Longer than the server is given to start: it writes its ready file either way. */
const READY_WAIT_MS = START_TIMEOUT_MS + 60_000;

/**
 * The server this file's tests use: the whole-database tests' own one when the suite started it
 * for them, otherwise the one the suite started for every live test (or NEO4J_URI named).
 */
const given: Partial<GivenNeo4j> | undefined =
  inject("wholeDatabaseNeo4j") ??
  (process.env.NEO4J_URI
    ? {
        uri: process.env.NEO4J_URI,
        username: process.env.NEO4J_USERNAME,
        password: process.env.NEO4J_PASSWORD,
        readyFile: process.env.KGRAG_TEST_NEO4J_READY,
      }
    : undefined);

/** The suite starts its servers without waiting for them: a live test waits here until its answers. */
async function untilReady(readyFile: string): Promise<void> {
  const deadline = Date.now() + READY_WAIT_MS;
  while (!existsSync(readyFile)) {
    if (Date.now() > deadline)
      throw new Error(`the test Neo4j was not ready within ${READY_WAIT_MS / 1000} s`);
    await sleep(100);
  }
  const state = JSON.parse(readFileSync(readyFile, "utf8")) as { error?: string };
  if (state.error) throw new Error(`the test Neo4j did not start: ${state.error}`);
}

if (given?.readyFile) await untilReady(given.readyFile);

/**
 * The live Neo4j that test/neo4j-server/global-setup.ts started (or NEO4J_URI named). Undefined
 * when there is none (no Java or Maven on this machine), and the live tests skip with that reason.
 */
export const liveNeo4j: Neo4jSettings | undefined = given?.uri
  ? {
      uri: given.uri,
      username: given.username ?? "neo4j",
      password: given.password ?? "",
      database: process.env.NEO4J_DATABASE || undefined,
    }
  : undefined;

// Code that reads its settings from the environment (the CLI in process) reaches the same server.
if (liveNeo4j) {
  process.env.NEO4J_URI = liveNeo4j.uri;
  process.env.NEO4J_USERNAME = liveNeo4j.username;
  process.env.NEO4J_PASSWORD = liveNeo4j.password;
}

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
/**
 * One workspace's nodes and the relationships touching them: what a test may compare before and
 * after a refused write while other tests write to other workspaces of the same database.
 */
export async function workspaceCounts(
  driver: Driver,
  workspace: string,
): Promise<{ nodes: number; relationships: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (n {workspace: $workspace})
     OPTIONAL MATCH (n)-[r]-()
     RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS relationships`,
    { workspace },
  );
  return {
    nodes: Number(records[0]?.get("nodes")),
    relationships: Number(records[0]?.get("relationships")),
  };
}

export async function databaseCounts(driver: Driver): Promise<{ nodes: number; relationships: number }> {
  const nodes = await driver.executeQuery("MATCH (n) RETURN count(n) AS n");
  const rels = await driver.executeQuery("MATCH ()-[r]->() RETURN count(r) AS n");
  return {
    nodes: Number(nodes.records[0]?.get("n")),
    relationships: Number(rels.records[0]?.get("n")),
  };
}
