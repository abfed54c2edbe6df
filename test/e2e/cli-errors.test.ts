import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runMain as run } from "../support/cli-in-process.js";

const root = mkdtempSync(join(tmpdir(), "kgrag-cli-errors-"));
afterEach(() => vi.restoreAllMocks());
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("CLI errors for a wrong folder or path", () => {
  it("says a read command's workspace does not exist instead of creating an empty one", async () => {
    const ws = join(root, "not-a-workspace");
    for (const args of [["status"], ["query", "who?"], ["communities"]]) {
      const { stderr, code } = await run([...args, "--workspace", ws]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/No kgrag workspace at .*not-a-workspace.*kgrag index/);
    }
    expect(existsSync(ws)).toBe(false);
  });

  it("refuses to index a path that does not exist, before touching the workspace", async () => {
    const ws = join(root, "ws");
    const { stderr, code } = await run(["index", join(root, "missing-folder"), "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/No such file or folder: .*missing-folder/);
    expect(existsSync(ws)).toBe(false);
  });
});

describe("commander's usage errors", () => {
  it.each([
    { args: ["query", "x", "--bogus"], error: /^kgrag: unknown option '--bogus'$/m, help: "kgrag query" },
    { args: ["index"], error: /^kgrag: missing required argument 'paths'$/m, help: "kgrag index" },
    { args: ["querx"], error: /^kgrag: unknown command 'querx'$/m, help: "kgrag" },
    {
      args: ["query", "x", "--mode", "fast"],
      error: /'fast' is invalid\. Allowed choices/,
      help: "kgrag query",
    },
    {
      args: ["query", "x", "--top-k", "0"],
      error: /'0' is invalid\. Expected a whole number/,
      help: "kgrag query",
    },
    {
      args: ["export", "--format", "pdf"],
      error: /'pdf' is invalid\. Allowed choices/,
      help: "kgrag export",
    },
    {
      args: ["cypher", "validate", "--bogus"],
      error: /unknown option '--bogus'/,
      help: "kgrag cypher validate",
    },
  ])("$args: exit 2, commander's one-line error and a pointer to help", async ({ args, error, help }) => {
    const { stderr, code } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(error);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(`Run '${help} --help' for usage.`);
    expect(stderr).not.toMatch(/Usage:|Options:/);
  });

  it("--help and --version still exit 0 and print to standard output", async () => {
    for (const args of [["--help"], ["query", "--help"], ["help", "export"]]) {
      const { stdout, code } = await run(args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: kgrag/);
    }
    const version = await run(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("no command at all is a usage error that lists the commands", async () => {
    const { stderr, code } = await run([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Commands:[\s\S]*query/);
  });
});

describe("--batch files and --out paths", () => {
  const ws = join(root, "indexed");

  beforeAll(async () => {
    const doc = join(root, "lumen.txt");
    writeFileSync(doc, "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.");
    expect((await run(["index", doc, "--workspace", ws])).code).toBe(0);
  });

  it("a missing --batch file is a one-line error saying what the file should hold", async () => {
    const missing = join(root, "nope.jsonl");
    for (const args of [
      ["query", "--batch", missing, "--workspace", ws],
      ["cypher", "validate", "--batch", missing],
    ]) {
      const { stderr, code } = await run(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(/--batch file not found: .*nope\.jsonl .*JSON object per line/);
      expect(stderr).not.toMatch(/ENOENT|\n\s+at /);
    }
  });

  it("an empty --batch file is an error, found before the workspace is opened", async () => {
    const empty = join(root, "empty.jsonl");
    writeFileSync(empty, "\n");
    const { stderr, code } = await run(["query", "--batch", empty, "--workspace", join(root, "none")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/empty\.jsonl has no questions/);
  });

  it("an --out in a folder that does not exist says to create the folder", async () => {
    const out = join(root, "no-such-dir", "graph.json");
    const { stderr, code } = await run(["export", "--format", "json", "--out", out, "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/the folder .*no-such-dir does not exist\. Create it first/);
    expect(stderr).not.toMatch(/ENOENT/);
  });

  it("an existing --out file is kept unless --force is given", async () => {
    const out = join(root, "graph.json");
    writeFileSync(out, "precious");
    const refused = await run(["export", "--format", "json", "--out", out, "--workspace", ws]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/graph\.json already exists; pass --force to overwrite it/);
    expect(readFileSync(out, "utf8")).toBe("precious");
    const forced = await run(["export", "--format", "json", "--out", out, "--force", "--workspace", ws]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).nodes.length).toBeGreaterThan(0);
  });

  it("refuses a --format whose file ending says another format, writing nothing", async () => {
    const out = join(root, "mismatched.json");
    const result = await run(["export", "--format", "graphml", "--out", out, "--workspace", ws]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /mismatched\.json ends in \.json, the ending of json, but --format is graphml/,
    );
    expect(existsSync(out)).toBe(false);
    const matching = await run([
      "export",
      "--format",
      "graphml",
      "--out",
      join(root, "g.graphml"),
      "--workspace",
      ws,
    ]);
    expect(matching.code).toBe(0);
  });

  it("neo4j-csv refuses a non-empty folder or a file as --out, and writes into a new folder", async () => {
    const full = join(root, "csv-full");
    mkdirSync(full);
    writeFileSync(join(full, "nodes_entities.csv"), "precious");
    const refused = await run(["export", "--format", "neo4j-csv", "--out", full, "--workspace", ws]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is a folder that is not empty; pass --force/);
    expect(readFileSync(join(full, "nodes_entities.csv"), "utf8")).toBe("precious");
    const file = join(root, "a-file.csv");
    writeFileSync(file, "x");
    expect((await run(["export", "--format", "neo4j-csv", "--out", file, "--workspace", ws])).stderr).toMatch(
      /a-file\.csv is a file; this format writes several files, so give a folder/,
    );
    const fresh = join(root, "csv-new");
    expect((await run(["export", "--format", "neo4j-csv", "--out", fresh, "--workspace", ws])).code).toBe(0);
    expect(existsSync(join(fresh, "nodes_entities.csv"))).toBe(true);
    // Every row names the workspace as the Neo4j store does (the folder's last segment), not the path given.
    const [header, firstRow] = readFileSync(join(fresh, "nodes_documents.csv"), "utf8").split("\n");
    expect((header ?? "").split(",")[1]?.replaceAll('"', "")).toBe("workspace");
    expect((firstRow ?? "").split(",")[1]?.replaceAll('"', "")).toBe(basename(ws));
  });
});
