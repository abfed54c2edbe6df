import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerAskCommand } from "../../src/cli/commands/ask.js";
import { registerChatCommand } from "../../src/cli/commands/chat.js";
import { addCypherSubcommands } from "../../src/cli/commands/cypher-subcommands.js";
import { UsageError } from "../../src/cli/output.js";
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
      ["line 5", false, false],
    ]);
    expect(Object.keys(lines[0])).toEqual(["id", "valid", "readOnly", "errors", "warnings"]);
    expect(lines[1].errors[0]).toMatch(/^Wrong relationship direction/);
    expect(lines[2].errors).toEqual(["Not read-only: DETACH DELETE writes to the database"]);
    expect(stderr.join("")).toContain("1/4 queries valid");
    expect(process.exitCode).toBe(1);
    expect(open).not.toHaveBeenCalled();
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
        `\`kgrag ${name}\` answers with Cypher run on the Neo4j backend[\\s\\S]*docker compose up -d`,
      ),
    );
    expect(open).not.toHaveBeenCalled();
  });

  it("ask refuses a workspace whose store is not Neo4j even when the environment says neo4j", async () => {
    vi.stubEnv("KGRAG_STORAGE", "neo4j");
    vi.stubEnv("NEO4J_URI", "bolt://localhost:7687");
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
    await expect(run(program().root, "cypher", "schema", "--json")).rejects.toThrow(
      /reads a live Neo4j database/,
    );
  });
});
