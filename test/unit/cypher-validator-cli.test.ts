import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerAskCommand } from "../../src/cli/commands/ask.js";
import { registerChatCommand } from "../../src/cli/commands/chat.js";
import { NEEDS_NEO4J } from "../../src/cli/commands/cypher.js";
import { addCypherSubcommands } from "../../src/cli/commands/cypher-subcommands.js";
import { UsageError } from "../../src/cli/usage-error.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { packagePath } from "../../src/util/paths.js";

const schemaFile = packagePath("bench/fixtures/movies-schema.json");

/** A program with `kgrag cypher validate|schema`, ask and chat; opening a workspace is scripted. */
function program(open = vi.fn(async () => ({ services: fakeServices(), close: async () => {} }))) {
  const root = new Command("kgrag").exitOverride().enablePositionalOptions();
  addCypherSubcommands(root.command("cypher").enablePositionalOptions(), open);
  registerAskCommand(root, open);
  registerChatCommand(root, open);
  return { root, open };
}

/** An embedded-store workspace: ask and chat only look at what kind of store it is. */
function fakeServices() {
  const store: Pick<GraphStore, "kind"> = { kind: "sqlite" };
  return { store, chat: null };
}

let stdout: string[];
let stderr: string[];

beforeEach(() => {
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
  process.exitCode = undefined;
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

const run = (root: Command, ...args: string[]) => root.parseAsync(["node", "kgrag", ...args]);

describe("kgrag cypher validate (no database)", () => {
  it("validates a JSONL batch into one result line per input line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-validate-"));
    const batch = join(dir, "queries.jsonl");
    writeFileSync(
      batch,
      [
        { id: "ok", cypher: "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN p.name, m.title" },
        { id: "direction", cypher: "MATCH (m:Movie)-[:DIRECTED]->(p:Person) RETURN p.name" },
        { id: 7, cypher: "MATCH (p:Person) DETACH DELETE p" },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n")
        .concat("\n\nnot json\n"),
    );
    const { root, open } = program();
    await run(root, "cypher", "validate", "--schema", schemaFile, "--batch", batch, "--jsonl");
    const lines = stdout
      .join("")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => [l.id, l.valid, l.readOnly])).toEqual([
      ["ok", true, true],
      ["direction", false, true],
      [7, false, false],
      [null, undefined, undefined],
    ]);
    // A line that is not a query has the shape `kgrag query --batch` gives it: id, line, error.
    expect(lines[3]).toEqual({
      id: null,
      line: 5,
      error: 'line 5 is not valid JSON; each line must be a JSON object {"id": ..., "cypher": "..."}',
    });
    expect(Object.keys(lines[0])).toEqual(["id", "valid", "readOnly", "errors", "warnings"]);
    expect(lines[1].errors[0]).toMatch(/^Wrong relationship direction/);
    expect(lines[2].errors).toEqual(["Not read-only: DETACH DELETE writes to the database"]);
    expect(stderr.join("")).toMatch(/1\/3 queries valid; 1 of 4 line\(s\) not a query \(line 5\)/);
    // Bad input (a line that is not a query) outranks an invalid query: exit 2, as for query --batch.
    expect(process.exitCode).toBe(2);
    expect(open).not.toHaveBeenCalled();
  });

  it("names the missing field of a batch line and keeps its id; only invalid queries exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-validate-"));
    const batch = join(dir, "queries.jsonl");
    writeFileSync(batch, `${JSON.stringify({ id: "q1", query: "MATCH (n) RETURN n" })}\n`);
    await run(program().root, "cypher", "validate", "--batch", batch);
    expect(JSON.parse(stdout.join(""))).toEqual({
      id: "q1",
      line: 1,
      error: 'line 1: missing "cypher"; each line must be a JSON object {"id": ..., "cypher": "..."}',
    });
    expect(process.exitCode).toBe(2);

    stdout = [];
    process.exitCode = undefined;
    writeFileSync(batch, `${JSON.stringify({ id: "w", cypher: "CREATE (n:Person)" })}\n`);
    await run(program().root, "cypher", "validate", "--schema", schemaFile, "--batch", batch);
    expect(JSON.parse(stdout.join("")).valid).toBe(false);
    expect(process.exitCode).toBe(1);
  });

  it("refuses --jsonl for one query (it is for --batch)", async () => {
    await expect(run(program().root, "cypher", "validate", "MATCH (n) RETURN n", "--jsonl")).rejects.toThrow(
      /--jsonl is for --batch; use --json/,
    );
  });

  it("refuses a schema file of another shape, naming the unknown keys and the expected format", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-validate-"));
    const guess = join(dir, "guess.json");
    writeFileSync(guess, JSON.stringify({ nodes: [{ label: "Person" }], relationships: [] }));
    const refusal = run(program().root, "cypher", "validate", "--schema", guess, "MATCH (n) RETURN n");
    await expect(refusal).rejects.toThrow(UsageError);
    await expect(
      run(program().root, "cypher", "validate", "--schema", guess, "MATCH (n) RETURN n"),
    ).rejects.toThrow(/Unrecognized keys: "nodes", "relationships"[\s\S]*Expected \{"labels": \[/);
    writeFileSync(guess, "{}");
    await expect(
      run(program().root, "cypher", "validate", "--schema", guess, "MATCH (n) RETURN n"),
    ).rejects.toThrow(/Missing "labels"/);
    expect(stdout).toEqual([]);
  });

  it("--help shows the schema.json format", async () => {
    const { root } = program();
    await expect(run(root, "cypher", "validate", "--help")).rejects.toThrow();
    expect(stdout.join("")).toMatch(/schema\.json \(only "labels" is required\): \{"labels": \[/);
  });

  it("validates one query and prints JSON", async () => {
    const { root } = program();
    await run(root, "cypher", "validate", "--schema", schemaFile, "MATCH (m:Movie) RETURN m.year", "--json");
    const result = JSON.parse(stdout.join(""));
    expect(result).toEqual({
      valid: false,
      readOnly: true,
      errors: ["Unknown property (:Movie).year (its properties: released, tagline, title)"],
      warnings: [],
    });
  });

  it("prints a readable verdict, and without a schema says what it could not check", async () => {
    const { root } = program();
    await run(root, "cypher", "validate", "MATCH (x:Anything) RETURN x");
    expect(stdout.join("")).toMatch(/^valid, read-only\n {2}warning: No --schema given/);
    expect(process.exitCode).toBeUndefined();
  });

  it("is a usage error without a query or with an unreadable schema", async () => {
    await expect(run(program().root, "cypher", "validate")).rejects.toThrow(UsageError);
    await expect(
      run(program().root, "cypher", "validate", "--schema", "/nonexistent/schema.json", "MATCH (n) RETURN n"),
    ).rejects.toThrow(/Cannot read the schema file/);
  });
});

describe("commands that need the Neo4j backend", () => {
  it.each([
    ["ask", ["ask", "Who acted in The Matrix?"]],
    ["chat", ["chat"]],
  ])("%s exits with a usage error on the embedded store, before opening it", async (name, args) => {
    vi.stubEnv("KGRAG_STORAGE", "sqlite");
    const { root, open } = program();
    await expect(run(root, ...args)).rejects.toThrow(
      new RegExp(
        `\`kgrag ${name}\` needs the Neo4j backend[\\s\\S]*docker compose up -d[\\s\\S]*kgrag migrate --to neo4j`,
      ),
    );
    expect(open).not.toHaveBeenCalled();
  });

  it("cypher, cypher schema, ask and chat list the same steps, migrating the workspace included", async () => {
    vi.stubEnv("KGRAG_STORAGE", "sqlite");
    const messageOf = async (...args: string[]) =>
      (await run(program().root, ...args).catch((error: Error) => error)) as Error;
    const steps = (message: string) => message.split("\n").filter((line) => line.startsWith("  "));
    const expected = steps(NEEDS_NEO4J);
    expect(expected.join("\n")).toMatch(
      /docker compose up -d[\s\S]*KGRAG_STORAGE=neo4j[\s\S]*migrate --to neo4j/,
    );
    for (const args of [["ask", "q"], ["chat"], ["cypher", "schema"]]) {
      expect(steps((await messageOf(...args)).message)).toEqual(expected);
    }
  });

  it("ask refuses a workspace whose store is not Neo4j even when the environment says neo4j", async () => {
    vi.stubEnv("KGRAG_STORAGE", "neo4j");
    vi.stubEnv("NEO4J_URI", "bolt://localhost:7687");
    vi.stubEnv("NEO4J_PASSWORD", "password");
    const close = vi.fn(async () => {});
    const open = vi.fn(async () => ({ services: fakeServices(), close }));
    const { root } = program(open);
    await expect(run(root, "ask", "anything")).rejects.toThrow(UsageError);
    expect(close).toHaveBeenCalled();
  });

  it("cypher schema says it needs a live Neo4j database", async () => {
    vi.stubEnv("KGRAG_STORAGE", "sqlite");
    const { root, open } = program();
    await expect(run(root, "cypher", "schema", "--json")).rejects.toThrow(/reads a live Neo4j database/);
    expect(open).not.toHaveBeenCalled();
    vi.stubEnv("KGRAG_STORAGE", "neo4j");
    vi.stubEnv("NEO4J_URI", "bolt://localhost:7687");
    vi.stubEnv("NEO4J_PASSWORD", "password");
    await expect(run(program().root, "cypher", "schema", "--json")).rejects.toThrow(
      /reads a live Neo4j database/,
    );
  });
});
