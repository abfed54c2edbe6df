import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverReadOnlySession, ReadOnlyRefusal, runReadOnlyCypher } from "../../src/cypher/run-cypher.js";
import { liveDriver, liveNeo4j, skipReason } from "../support/live-neo4j.js";

const LIMITS = { timeoutMs: 30_000, maxRows: 100 };

/**
 * Neo4j 5.26 reads `\uXXXX` escapes anywhere in a query, not only in strings: in keywords and
 * names, and an escaped quote ends a string. The read-only runner that `kgrag cypher` (and the
 * server's /api/v1/cypher) uses must judge the query as Neo4j reads it, or a procedure off the
 * read-only list would run (see withUnicodeEscapesRead in src/cypher/introspection.ts).
 */
describe.skipIf(!liveNeo4j)(
  `\\u escapes in read-only Cypher on a live Neo4j (${liveNeo4j ? "live" : skipReason})`,
  () => {
    let driver: Driver;
    const runner = (query: string) =>
      runReadOnlyCypher(driverReadOnlySession(driver, liveNeo4j?.database), query, {}, LIMITS);

    beforeAll(() => {
      if (liveNeo4j) driver = liveDriver(liveNeo4j);
    });

    afterAll(async () => {
      await driver?.close();
    });

    it("Neo4j reads the escapes outside strings: in a name, in a keyword, and a quote that ends a string", async () => {
      const read = async (query: string) =>
        (await driver.executeQuery(query)).records.map((r) => r.toObject());
      expect(await read("RETURN 1 AS \\u0078")).toEqual([{ x: expect.anything() }]);
      expect(await read("WITH 1 AS a \\u0043ALL db.info() YIELD name RETURN count(name) AS n")).toEqual([
        { n: expect.anything() },
      ]);
      expect(await read("WITH 'x\\u0027 AS a CALL db.info() YIELD name RETURN a //' AS a RETURN a")).toEqual([
        { a: "x" },
      ]);
    });

    it("refuses a procedure off the read-only list hidden by an escape, and runs a listed one written so", async () => {
      const hidden = [
        "WITH 1 AS a \\u0043ALL db.stats.clear('QUERIES') YIELD section RETURN section",
        "WITH 1 AS a C\\u0041LL db.stats.clear('QUERIES') YIELD section RETURN section",
        "WITH 'x\\u0027 AS a CALL db.stats.clear(\"QUERIES\") YIELD section RETURN section //' AS a RETURN a",
      ];
      for (const query of hidden) {
        const refused = runner(query);
        await expect(refused, query).rejects.toBeInstanceOf(ReadOnlyRefusal);
        await expect(refused, query).rejects.toThrow(/db\.stats\.clear is not one of the read-only/);
      }
      const listed = await runner("WITH 1 AS a \\u0043ALL db.info() YIELD name RETURN count(name) AS n");
      expect(listed.rows).toHaveLength(1);
    });
  },
);
