import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../support/cli-child.js";
import { runMain } from "../../support/cli-in-process.js";
import { databaseCounts, liveDriver, liveNeo4j, skipReason, useNeo4jEnv } from "../../support/live-neo4j.js";

/**
 * `kgrag cypher` on a workspace indexed into the live Neo4j: every shipped exploration query
 * returns rows, writes never reach the server, the timeout and the row cap hold.
 */
describe.skipIf(!liveNeo4j)(`kgrag cypher on a live Neo4j (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let workspace: string;
  let driver: Driver;

  const cypher = async (...args: string[]) => runMain(["cypher", ...args, "--workspace", workspace]);
  const rowsOf = async (...args: string[]) => {
    const result = await cypher(...args, "--json");
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { rows: Record<string, unknown>[]; truncated: boolean };
  };

  beforeAll(async () => {
    if (!liveNeo4j) return;
    useNeo4jEnv(liveNeo4j);
    driver = liveDriver(liveNeo4j);
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-explore-"));
    workspace = join(root, `explore-${randomUUID()}`);
    const indexed = await runMain([
      "index",
      join(REPO_ROOT, "samples/corpus"),
      "--workspace",
      workspace,
      "--json",
    ]);
    expect(indexed.code, indexed.stderr).toBe(0);
  }, 180_000);

  afterAll(async () => {
    if (!liveNeo4j) return;
    const name = workspace.split("/").pop();
    await driver.executeQuery("MATCH (n {workspace: $name}) DETACH DELETE n", { name });
    await driver.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("runs every file in cypher/explore/ and each returns rows", async () => {
    const top = await rowsOf("--file", "cypher/explore/top-entities-by-degree.cypher", "--param", "limit=5");
    expect(top.rows.length).toBe(5);
    const [first, second] = top.rows.map((row) => String(row.entity));
    const communities = await rowsOf(`MATCH (c:Community {workspace: $workspace}) RETURN c.id AS id LIMIT 1`);
    const params: Record<string, string[]> = {
      "top-entities-by-degree": [],
      "entity-neighbourhood": [`entity=${first}`],
      "entity-sources": [`entity=${first}`],
      "shortest-path": [`from=${first}`, `to=${second}`],
      "community-members-and-report": [`community=${String(communities.rows[0]?.id)}`],
    };
    const files = readdirSync(join(REPO_ROOT, "cypher/explore")).filter((f) => f.endsWith(".cypher"));
    expect(files.map((f) => f.replace(".cypher", "")).sort()).toEqual(Object.keys(params).sort());
    for (const file of files) {
      const name = file.replace(".cypher", "");
      const args = (params[name] ?? []).flatMap((p) => ["--param", p]);
      const result = await rowsOf("--file", `cypher/explore/${file}`, ...args);
      expect(result.rows.length, `${file} returned no rows`).toBeGreaterThan(0);
    }
  });

  it("refuses every kind of write before it reaches the server, and the database is unchanged", async () => {
    const before = await databaseCounts(driver);
    const writes = [
      "CREATE (:Intruder {name: 'x'})",
      "MERGE (e:Entity {workspace: $workspace, key: 'intruder'}) RETURN e",
      "MATCH (e:Entity {workspace: $workspace}) SET e.name = 'changed' RETURN count(e)",
      "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e",
      "CALL db.createLabel('Intruder')",
      "LOAD CSV FROM 'file:///etc/passwd' AS line CREATE (:Line {text: line[0]})",
      "MATCH (d:Document {workspace: $workspace}) REMOVE d.title RETURN d",
    ];
    for (const query of writes) {
      const result = await cypher(query);
      expect(result.code, `${query} was not refused`).toBe(2);
      expect(result.stderr).toMatch(/Refused|read-only|not allowed|write/i);
    }
    expect(await databaseCounts(driver)).toEqual(before);
    const names = await rowsOf("MATCH (e:Entity {workspace: $workspace}) WHERE e.name = 'changed' RETURN e");
    expect(names.rows).toEqual([]);
  });

  it("runs read-only introspection, DBMS procedures included, and refuses the commands that change state", async () => {
    const components = await rowsOf(
      "CALL dbms.components() YIELD name, versions RETURN name, versions[0] AS version",
    );
    expect(components.rows).toEqual([{ name: "Neo4j Kernel", version: expect.stringMatching(/^5\.26\./) }]);
    const procedures = await rowsOf("SHOW PROCEDURES YIELD name WHERE name = 'db.labels' RETURN name");
    expect(procedures.rows).toEqual([{ name: "db.labels" }]);
    const labels = await rowsOf("CALL db.labels() YIELD label WHERE label = 'Entity' RETURN label");
    expect(labels.rows).toEqual([{ label: "Entity" }]);
    const schema = await rowsOf("CALL db.schema.visualization() YIELD nodes RETURN size(nodes) > 0 AS any");
    expect(schema.rows).toEqual([{ any: true }]);
    const refused: [string, string][] = [
      [
        "CALL dbms.listConfig() YIELD name RETURN name",
        "dbms.listConfig is not one of the read-only DBMS procedures",
      ],
      ["TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "TERMINATE stops running transactions"],
      ["SHOW SETTINGS", "SHOW SETTINGS is not among the read-only SHOW commands"],
      ["CREATE INDEX intruder FOR (n:Intruder) ON (n.name)", "Neo4j plans this query as schema-changing"],
    ];
    for (const [query, reason] of refused) {
      const result = await cypher(query);
      expect(result.code, `${query} was not refused`).toBe(2);
      expect(result.stderr).toContain(`Refused: ${reason}`);
    }
    const indexes = await driver.executeQuery("SHOW INDEXES YIELD name WHERE name = 'intruder' RETURN name");
    expect(indexes.records).toEqual([]);
  });

  it("refuses procedures that change the server's state before they reach it, and runs the read-only ones", async () => {
    const status = async () => {
      const { records } = await driver.executeQuery("CALL db.stats.status() YIELD section, status");
      return Object.fromEntries(records.map((r) => [r.get("section"), r.get("status")]));
    };
    // Neo4j collects query statistics from the start: stopped here, a collect that ran would restart it.
    await driver.executeQuery("CALL db.stats.stop('QUERIES')");
    expect(await status()).toEqual({ QUERIES: "idle" });
    const refused = [
      "CALL db.stats.collect('QUERIES')",
      "CALL db.stats.clear('QUERIES')",
      "CALL db.stats.stop('QUERIES')",
      "CALL db.stats.retrieve('QUERIES')",
      "CALL db.stats.retrieveAllAnonymized('graph')",
      "CALL db.resampleIndex('intruder')",
      "CALL db.resampleOutdatedIndexes()",
      "CALL db.prepareForReplanning()",
      "CALL db.clearQueryCaches()",
      "CALL dbms.listConnections()",
    ];
    for (const query of refused) {
      const name = /CALL ([\w.]+)\(/.exec(query)?.[1];
      const result = await cypher(query);
      expect(result.code, `${query} was not refused`).toBe(2);
      expect(result.stderr).toContain(`${name} is not one of the read-only`);
    }
    expect(await status()).toEqual({ QUERIES: "idle" });
    const introspection = [
      "CALL db.info() YIELD name RETURN name",
      "CALL db.ping() YIELD success RETURN success",
      "CALL db.stats.status() YIELD section, status RETURN section, status",
      "CALL db.awaitIndexes(10)",
      "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer RETURN analyzer LIMIT 1",
    ];
    for (const query of introspection) await rowsOf(query);
    expect(await status()).toEqual({ QUERIES: "idle" });
  });

  it("stops a query that runs past its timeout, with a clear message", async () => {
    const result = await cypher(
      "UNWIND range(1, 200000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS n",
      "--timeout",
      "300",
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ran longer than its 300 ms time limit/);
  });

  it("reports a query Neo4j cannot run as bad input (exit 2), positioned in the query as typed", async () => {
    const typo = await cypher("MATCH (n) RETURN n LIMT 5");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Neo4j cannot run this query: Invalid input 'LIMT'");
    expect(typo.stderr).toContain("(line 1, column 20 (offset: 19))");
    expect(typo.stderr).toContain('"MATCH (n) RETURN n LIMT 5"');
    expect(typo.stderr).not.toContain("EXPLAIN");
    const missing = await cypher("MATCH (e:Entity {name: $name}) RETURN e.name");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Expected parameter\(s\): name\nPass them with --param name=value/);
  });

  it("cuts a result at the row cap and says so", async () => {
    const json = await rowsOf("UNWIND range(1, 50) AS x RETURN x", "--max-rows", "10");
    expect(json.rows.length).toBe(10);
    expect(json.truncated).toBe(true);
    const table = await cypher("UNWIND range(1, 50) AS x RETURN x", "--max-rows", "10");
    expect(table.stdout).toMatch(/10 rows; stopped at --max-rows 10/);
  });
});
