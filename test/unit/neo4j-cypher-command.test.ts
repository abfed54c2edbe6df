import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import neo4j from "neo4j-driver";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { findCypherFile, formatCypherRows, resolveQuery } from "../../src/cli/actions/cypher.js";
import { registerCypherCommand } from "../../src/cli/commands/cypher.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { configFromEnv } from "../../src/config.js";
import {
  CLI_RAISE_TIMEOUT,
  CypherTimeout,
  parseCypherParams,
  ReadOnlyRefusal,
  type ReadOnlySession,
  runReadOnlyCypher,
  withoutExplainPrefix,
} from "../../src/cypher/run-cypher.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { UsageTracker } from "../../src/llm/usage.js";
import type { KgragServices } from "../../src/services.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { silentProgress } from "../../src/util/progress.js";
import { neo4jConfig, planScriptedDriver, planScriptedStore } from "../support/plan-scripted-neo4j.js";

const limits = { timeoutMs: 1000, maxRows: 10 };

function scriptedSession(queryType: string) {
  const ran: { query: string; params: Record<string, unknown> }[] = [];
  const session: ReadOnlySession = {
    explain: async () => queryType,
    run: async (query, params) => {
      ran.push({ query, params });
      return { columns: ["n"], rows: [{ n: 1 }], truncated: false };
    },
  };
  return { session, ran };
}

describe("runReadOnlyCypher", () => {
  it("runs a query whose EXPLAIN plan is read-only, whole numbers sent as INTEGER", async () => {
    const { session, ran } = scriptedSession("r");
    const given = { a: 1, b: 1.5, c: [2], d: { e: 3 }, s: "x" };
    const rows = await runReadOnlyCypher(session, " MATCH (n) RETURN 1 AS n ", given, limits);
    expect(rows.rows).toEqual([{ n: 1 }]);
    expect(ran).toEqual([
      {
        query: "MATCH (n) RETURN 1 AS n",
        params: { a: neo4j.int(1), b: 1.5, c: [neo4j.int(2)], d: { e: neo4j.int(3) }, s: "x" },
      },
    ]);
  });

  it.each([
    ["rw", /read-write/],
    ["w", /write-only/],
    ["s", /schema-changing/],
  ])("refuses a query planned as %s without running it", async (queryType, message) => {
    const { session, ran } = scriptedSession(queryType);
    await expect(runReadOnlyCypher(session, "MATCH (n) DETACH DELETE n", {}, limits)).rejects.toThrow(
      message,
    );
    expect(ran).toEqual([]);
  });

  it.each([
    "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition",
    "CALL dbms.info()",
    "CALL dbms.showCurrentUser()",
  ])("runs a read-only DBMS procedure although Neo4j plans it as schema-changing: %s", async (query) => {
    const { session, ran } = scriptedSession("s");
    await runReadOnlyCypher(session, query, {}, limits);
    expect(ran.map((r) => r.query)).toEqual([query]);
  });

  it.each([
    [
      "CALL dbms.listConfig() YIELD name RETURN name",
      "Refused: dbms.listConfig is not one of the read-only DBMS procedures kgrag runs (dbms.components, dbms.info, dbms.showCurrentUser); kgrag runs only read-only Cypher.",
    ],
    [
      "CALL dbms.components() YIELD name CALL dbms.routing.getRoutingTable({}) YIELD ttl RETURN name, ttl",
      "Refused: dbms.routing.getRoutingTable is not one of the read-only DBMS procedures kgrag runs (dbms.components, dbms.info, dbms.showCurrentUser); kgrag runs only read-only Cypher.",
    ],
    [
      "CALL dbms.components() YIELD name CREATE (:Copy {name: name})",
      "Refused: Neo4j plans this query as schema-changing; kgrag runs only read-only Cypher.",
    ],
  ])("refuses what the DBMS list does not cover, planned as schema-changing: %s", async (query, message) => {
    const { session, ran } = scriptedSession("s");
    await expect(runReadOnlyCypher(session, query, {}, limits)).rejects.toThrow(message);
    expect(ran).toEqual([]);
  });

  it.each([
    [
      "TERMINATE TRANSACTIONS 'neo4j-transaction-7'",
      "Refused: TERMINATE stops running transactions; kgrag runs only read-only Cypher.",
    ],
    [
      "SHOW TRANSACTIONS YIELD transactionId AS id TERMINATE TRANSACTIONS id YIELD message RETURN message",
      "Refused: SHOW TRANSACTIONS is not among the read-only SHOW commands (SHOW PROCEDURES, FUNCTIONS, INDEXES and CONSTRAINTS); TERMINATE stops running transactions; kgrag runs only read-only Cypher.",
    ],
    [
      "show settings",
      "Refused: show settings is not among the read-only SHOW commands (SHOW PROCEDURES, FUNCTIONS, INDEXES and CONSTRAINTS); kgrag runs only read-only Cypher.",
    ],
  ])("refuses a command Neo4j plans as a read before asking it: %s", async (query, message) => {
    const explained: string[] = [];
    const { session, ran } = scriptedSession("r");
    session.explain = async (q) => {
      explained.push(q);
      return "r";
    };
    await expect(runReadOnlyCypher(session, query, {}, limits)).rejects.toThrow(message);
    expect(explained).toEqual([]);
    expect(ran).toEqual([]);
  });

  it.each([
    "CALL db.stats.clear('QUERIES')",
    "CALL db.stats.collect('QUERIES')",
    "CALL db.stats.stop('QUERIES')",
    "CALL db.stats.retrieve('GRAPH COUNTS')",
    "CALL db.stats.retrieveAllAnonymized('graph')",
    "CALL db.resampleIndex('entity_name')",
    "CALL db.resampleOutdatedIndexes()",
    "CALL db.prepareForReplanning()",
    "CALL db.clearQueryCaches()",
    "MATCH (n) WITH count(n) AS n CALL db.stats.clear('QUERIES') YIELD section RETURN n, section",
    "CALL tx.setMetaData({a: 1})",
    "CALL dbms.listConfig()",
    "CALL dbms.killConnection('bolt-1')",
  ])("refuses a procedure outside the read-only list before asking Neo4j: %s", async (query) => {
    const explained: string[] = [];
    const { session, ran } = scriptedSession("r");
    session.explain = async (q) => {
      explained.push(q);
      return "r";
    };
    const name = /CALL ([\w.]+)\(/.exec(query.replace(/^.*?(?=CALL)/, ""))?.[1] ?? "";
    const refused = runReadOnlyCypher(session, query, {}, limits);
    await expect(refused).rejects.toThrow(ReadOnlyRefusal);
    await expect(refused).rejects.toThrow(`${name} is not one of the read-only`);
    expect(explained).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("runs the read-only introspection procedures Neo4j plans as reads", async () => {
    const { session, ran } = scriptedSession("r");
    const queries = [
      "CALL db.labels() YIELD label RETURN label",
      "CALL db.schema.visualization()",
      "CALL db.info()",
      "CALL db.ping()",
      "CALL db.stats.status()",
      "CALL db.awaitIndexes(5)",
      "CALL db.index.fulltext.listAvailableAnalyzers()",
      "CALL db.index.fulltext.queryNodes('entity_text', 'acme') YIELD node RETURN node",
      "CALL { MATCH (n) RETURN n LIMIT 1 } RETURN n",
    ];
    for (const query of queries) await runReadOnlyCypher(session, query, {}, limits);
    expect(ran.map((r) => r.query)).toEqual(queries);
  });

  describe("procedures the user vouches only read (allowProcedures)", () => {
    const apoc = { ...limits, allowProcedures: ["apoc.meta.schema", "apoc.path.subgraphAll"] };

    function explainedSession(queryType: string) {
      const scripted = scriptedSession(queryType);
      const explained: string[] = [];
      scripted.session.explain = async (query) => {
        explained.push(query);
        return queryType;
      };
      return { ...scripted, explained };
    }

    it("refuses an unlisted plugin procedure, saying how to allow it", async () => {
      const { session, explained } = explainedSession("r");
      await expect(runReadOnlyCypher(session, "CALL apoc.meta.schema()", {}, limits)).rejects.toThrow(
        /procedure apoc\.meta\.schema is not one of the read-only procedures kgrag runs \(.*\); if it only reads, name it in the config's neo4j\.readOnlyProcedures \(kgrag cypher: --allow-procedure NAME\)/,
      );
      expect(explained).toEqual([]);
    });

    it("lets an allowed procedure past the pre-check, and still asks EXPLAIN before running it", async () => {
      const { session, ran, explained } = explainedSession("r");
      const query =
        "MATCH (n:Entity) WITH n LIMIT 1 CALL apoc.path.subgraphAll(n, {}) YIELD nodes RETURN nodes";
      await runReadOnlyCypher(session, query, {}, apoc);
      expect(explained).toEqual([query]);
      expect(ran.map((r) => r.query)).toEqual([query]);
    });

    it.each([
      ["rw", /Refused: Neo4j plans this query as read-write/],
      ["w", /Refused: Neo4j plans this query as write-only/],
      ["s", /Refused: Neo4j plans this query as schema-changing/],
    ])("refuses an allowed procedure that Neo4j plans as %s", async (queryType, message) => {
      const { session, ran, explained } = explainedSession(queryType);
      const allowed = { ...limits, allowProcedures: ["apoc.refactor.rename.label"] };
      const query = "CALL apoc.refactor.rename.label('A', 'B')";
      await expect(runReadOnlyCypher(session, query, {}, allowed)).rejects.toThrow(message);
      expect(explained).toEqual([query]);
      expect(ran).toEqual([]);
    });

    it.each([
      "CALL APOC.META.SCHEMA()",
      "CALL apoc.meta.Schema()",
      "CALL apoc.meta",
      "CALL apoc.meta.schemaX()",
      "CALL apoc.meta.schema() YIELD value CALL apoc.meta.data() YIELD label RETURN value, label",
    ])("allows the exact names only, as Neo4j resolves them: %s", async (query) => {
      const { session, ran, explained } = explainedSession("r");
      await expect(runReadOnlyCypher(session, query, {}, apoc)).rejects.toThrow(ReadOnlyRefusal);
      expect(explained).toEqual([]);
      expect(ran).toEqual([]);
    });
  });

  it("runs the read-only SHOW commands, and a query that only mentions SHOW in a string", async () => {
    const { session, ran } = scriptedSession("r");
    const queries = [
      "SHOW PROCEDURES YIELD name, mode WHERE mode = 'READ' RETURN name",
      "SHOW FUNCTIONS",
      "SHOW RANGE INDEXES",
      "SHOW CONSTRAINTS",
      "MATCH (m:Movie) WHERE m.title = 'Show me TERMINATE' RETURN m",
    ];
    for (const query of queries) await runReadOnlyCypher(session, query, {}, limits);
    expect(ran.map((r) => r.query)).toEqual(queries);
  });

  it("says how to allow more time only where the caller can", () => {
    expect(new CypherTimeout(5000).message).toBe(
      "Stopped: the query ran longer than its 5000 ms time limit. Narrow it (a LIMIT, a label, an indexed property).",
    );
    expect(new CypherTimeout(5000, CLI_RAISE_TIMEOUT).message).toMatch(
      /indexed property\) or raise --timeout\.$/,
    );
  });

  it("refuses EXPLAIN/PROFILE prefixes and empty queries", async () => {
    const { session } = scriptedSession("r");
    await expect(runReadOnlyCypher(session, "PROFILE MATCH (n) RETURN n", {}, limits)).rejects.toThrow(
      /EXPLAIN/,
    );
    await expect(runReadOnlyCypher(session, "  ", {}, limits)).rejects.toThrow(/empty/);
  });
});

describe("parseCypherParams", () => {
  it("reads JSON values as plain values and keeps other text", () => {
    const params = parseCypherParams([
      "limit=10",
      "ratio=0.5",
      'names=["a",2]',
      "name=Acme Corp",
      'code="007"',
    ]);
    expect(params).toEqual({ limit: 10, ratio: 0.5, names: ["a", 2], name: "Acme Corp", code: "007" });
  });

  it("leaves the INTEGER conversion to the run, which converts each whole number once", async () => {
    const { session, ran } = scriptedSession("r");
    const params = parseCypherParams(["limit=10", 'names=["a",2]', 'map={"k":3}']);
    await runReadOnlyCypher(session, "RETURN $limit AS n", params, limits);
    expect(ran[0]?.params).toEqual({
      limit: neo4j.int(10),
      names: ["a", neo4j.int(2)],
      map: { k: neo4j.int(3) },
    });
  });

  it("refuses a pair without a parameter name", () => {
    expect(() => parseCypherParams(["=3"])).toThrow(/key=value/);
    expect(() => parseCypherParams(["no-equals"])).toThrow(/key=value/);
  });
});

describe("resolveQuery", () => {
  it("fills $workspace into a shipped exploration file and checks its parameters", () => {
    const file = findCypherFile("explore/shortest-path");
    const { text, params } = resolveQuery(undefined, { file, param: ["from=Alice", "to=Bob"] }, "ws");
    expect(text).toContain("shortestPath");
    expect(params).toEqual({ workspace: "ws", from: "Alice", to: "Bob" });
    expect(() => resolveQuery(undefined, { file, param: ["from=Alice"] }, "ws")).toThrow(/needs \$to/);
  });

  it("passes optional parameters of a file as null", () => {
    const file = findCypherFile("cypher/explore/top-entities-by-degree.cypher");
    expect(resolveQuery(undefined, { file, param: [] }, "ws").params).toEqual({
      workspace: "ws",
      limit: null,
    });
  });

  it("adds $workspace to an inline query only when it uses it", () => {
    expect(
      resolveQuery("MATCH (e:Entity {workspace: $workspace}) RETURN e", { param: [] }, "ws").params,
    ).toEqual({
      workspace: "ws",
    });
    expect(resolveQuery("RETURN 1", { param: [] }, "ws").params).toEqual({});
  });

  it("wants exactly one of a query and --file, and lists the shipped files for an unknown one", () => {
    expect(() => resolveQuery("RETURN 1", { file: "x", param: [] }, "ws")).toThrow(UsageError);
    expect(() => resolveQuery(undefined, { param: [] }, "ws")).toThrow(/Give a Cypher query/);
    expect(() => findCypherFile("explore/nope")).toThrow(/cypher\/explore\/entity-sources\.cypher/);
  });
});

describe("formatCypherRows", () => {
  it("prints a table, flattens long values and says when rows were cut", () => {
    const out = formatCypherRows(
      {
        columns: ["name", "tags"],
        rows: [
          { name: "Acme", tags: ["a", "b"] },
          { name: "x".repeat(200), tags: null },
        ],
        truncated: true,
      },
      2,
    );
    const lines = out.split("\n");
    expect(lines[0]?.trimEnd()).toMatch(/^name\s+tags$/);
    expect(out).toContain('["a","b"]');
    expect(out).toContain(`${"x".repeat(79)}…`);
    expect(lines.at(-1)).toBe("2 rows; stopped at --max-rows 2");
  });
});

describe("kgrag cypher command", () => {
  let dir: string;
  const savedStorage = process.env.KGRAG_STORAGE;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kgrag-cypher-"));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    if (savedStorage === undefined) delete process.env.KGRAG_STORAGE;
    else process.env.KGRAG_STORAGE = savedStorage;
  });

  async function embeddedServices(): Promise<{ services: KgragServices; close: () => Promise<void> }> {
    const store = await openSqliteStore(dir);
    const services: KgragServices = {
      config: configFromEnv({}),
      store,
      embedder: new HashingEmbedder(16),
      chat: null,
      usage: new UsageTracker(),
      progress: silentProgress,
    };
    return { services, close: () => store.close() };
  }

  it("hands `cypher validate ... --json` to the subcommand, options included", async () => {
    const program = new Command("kgrag").exitOverride();
    const open = vi.fn(embeddedServices);
    const cypher = registerCypherCommand(program, open);
    const seen: unknown[] = [];
    cypher
      .command("validate")
      .argument("<query>")
      .option("--json")
      .action((query: string, opts: { json?: boolean }) => {
        seen.push({ query, json: opts.json });
      });
    await program.parseAsync(["cypher", "validate", "MATCH (n) RETURN n", "--json"], { from: "user" });
    expect(seen).toEqual([{ query: "MATCH (n) RETURN n", json: true }]);
    expect(open).not.toHaveBeenCalled();
  });

  it("on the embedded store, stops with a usage error saying how to start Neo4j", async () => {
    delete process.env.KGRAG_STORAGE;
    const program = new Command("kgrag").exitOverride();
    const open = vi.fn(embeddedServices);
    registerCypherCommand(program, open);
    const run = program.parseAsync(["cypher", "MATCH (n) RETURN n"], { from: "user" });
    await expect(run).rejects.toBeInstanceOf(UsageError);
    await expect(run).rejects.toThrow(/docker compose up -d[\s\S]*KGRAG_STORAGE=neo4j NEO4J_URI=bolt/);
    expect(open).not.toHaveBeenCalled();
  });

  it("also refuses when the opened workspace turns out to be embedded, and closes it", async () => {
    process.env.KGRAG_STORAGE = "neo4j";
    const program = new Command("kgrag").exitOverride();
    const close = vi.fn(async () => {});
    registerCypherCommand(program, async () => ({ ...(await embeddedServices()), close }));
    await expect(program.parseAsync(["cypher", "RETURN 1"], { from: "user" })).rejects.toThrow(
      /needs the Neo4j backend/,
    );
    expect(close).toHaveBeenCalledOnce();
  });
});

describe("kgrag cypher: procedures the user vouches only read", () => {
  const savedStorage = process.env.KGRAG_STORAGE;
  let printed: string[];

  beforeEach(() => {
    process.env.KGRAG_STORAGE = "neo4j";
    printed = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    if (savedStorage === undefined) delete process.env.KGRAG_STORAGE;
    else process.env.KGRAG_STORAGE = savedStorage;
  });

  /** `kgrag cypher ...args` on a Neo4j workspace whose plans `planOf` gives, with the config's list. */
  async function runCypher(args: string[], readOnlyProcedures: string[], planOf = (_query: string) => "r") {
    const fake = planScriptedDriver(planOf);
    const services: KgragServices = {
      config: neo4jConfig(readOnlyProcedures),
      store: planScriptedStore(fake.driver),
      embedder: new HashingEmbedder(16),
      chat: null,
      usage: new UsageTracker(),
      progress: silentProgress,
    };
    const program = new Command("kgrag").exitOverride();
    registerCypherCommand(program, async () => ({ services, close: async () => {} }));
    const run = program.parseAsync(["cypher", ...args], { from: "user" });
    return { run, ...fake };
  }

  it("runs a procedure named in neo4j.readOnlyProcedures after EXPLAIN plans it as a read", async () => {
    const { run, explained, ran } = await runCypher(["CALL apoc.meta.schema()"], ["apoc.meta.schema"]);
    await run;
    expect(explained).toEqual(["CALL apoc.meta.schema()"]);
    expect(ran).toEqual(["CALL apoc.meta.schema()"]);
    expect(printed.join("")).toContain("1 row");
  });

  it("runs one allowed with --allow-procedure, and refuses it without, naming the flag", async () => {
    const query = "CALL apoc.meta.data() YIELD label RETURN label";
    const allowed = await runCypher([query, "--allow-procedure", "apoc.meta.data"], []);
    await allowed.run;
    expect(allowed.ran).toEqual([query]);

    const refused = await runCypher([query], ["apoc.meta.schema"]);
    await expect(refused.run).rejects.toBeInstanceOf(UsageError);
    await expect(refused.run).rejects.toThrow(
      /procedure apoc\.meta\.data is not one of the read-only procedures kgrag runs.*neo4j\.readOnlyProcedures.*--allow-procedure NAME/,
    );
    expect(refused.explained).toEqual([]);
  });

  it("refuses an allowed procedure that Neo4j plans as a write", async () => {
    const query = "CALL apoc.create.node(['X'], {}) YIELD node RETURN node";
    const { run, explained, ran } = await runCypher(
      [query, "--allow-procedure", "apoc.create.node"],
      [],
      () => "rw",
    );
    await expect(run).rejects.toThrow(
      "Refused: Neo4j plans this query as read-write; kgrag runs only read-only Cypher.",
    );
    expect(explained).toEqual([query]);
    expect(ran).toEqual([]);
  });
});

describe("withoutExplainPrefix", () => {
  it("gives Neo4j's positions and quoted line for the query as sent, not for EXPLAIN <query>", () => {
    const firstLine =
      "Invalid input 'LIMT': expected 'LIMIT' (line 1, column 28 (offset: 27))\n" +
      '"EXPLAIN MATCH (n) RETURN n LIMT 5"\n' +
      `${" ".repeat(28)}^`;
    expect(withoutExplainPrefix(firstLine)).toBe(
      "Invalid input 'LIMT': expected 'LIMIT' (line 1, column 20 (offset: 19))\n" +
        '"MATCH (n) RETURN n LIMT 5"\n' +
        `${" ".repeat(20)}^`,
    );
  });

  it("keeps the column of a later line and only moves the offset", () => {
    const laterLine =
      "Variable `m` not defined (line 2, column 8 (offset: 17))\n" + '"RETURN m"\n' + "        ^";
    expect(withoutExplainPrefix(laterLine)).toBe(
      "Variable `m` not defined (line 2, column 8 (offset: 9))\n" + '"RETURN m"\n' + "        ^",
    );
  });
});
