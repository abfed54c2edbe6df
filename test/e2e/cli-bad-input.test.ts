import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { REPO_ROOT, startCli } from "../support/cli-child.js";
import { runMain as run } from "../support/cli-in-process.js";

const root = mkdtempSync(join(tmpdir(), "kgrag-cli-bad-input-"));
const ws = join(root, "ws");
const corpus = join(root, "corpus.jsonl");
const questions = join(root, "questions.jsonl");

const DOCS = [
  {
    id: "lumen",
    title: "Lumen Robotics",
    text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.",
  },
  { id: "okafor", title: "Mara Okafor", text: "Mara Okafor was born in Ibadan, Nigeria, in 1984." },
];
const QUESTION = { id: "q1", question: "Who founded Lumen Robotics?", gold_titles: ["Lumen Robotics"] };

const jsonl = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join("\n");

beforeAll(async () => {
  writeFileSync(corpus, jsonl(DOCS));
  writeFileSync(questions, jsonl([QUESTION]));
  expect((await run(["index", corpus, "--workspace", ws])).code).toBe(0);
});
afterEach(() => vi.unstubAllEnvs());
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("kgrag eval with bad input", () => {
  it("a missing --corpus is exit 2 before any workspace is created", async () => {
    const fresh = join(root, "never-created");
    const { stderr, code, stdout } = await run([
      "eval",
      "--questions",
      questions,
      "--corpus",
      join(root, "nope.jsonl"),
      "--workspace",
      fresh,
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--corpus file not found: .*nope\.jsonl .*\{"id", "title", "text"\}/);
    expect(stdout).toBe("");
    expect(existsSync(fresh)).toBe(false);
  });

  it("a missing --questions file is exit 2 in one line, not Node's ENOENT", async () => {
    const { stderr, code } = await run(["eval", "--questions", join(root, "nope"), "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--questions file not found: .*nope .*"gold_titles"/);
    expect(stderr).not.toMatch(/ENOENT/);
  });

  it("a --k past the deepest query (10,000 passages) is exit 2 in one line, before any question runs", async () => {
    const { stderr, code, stdout } = await run([
      "eval",
      "--questions",
      questions,
      "--k",
      "5,20000",
      "--workspace",
      ws,
    ]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'kgrag: --k expects whole numbers from 1 to 10,000 separated by commas, e.g. 5,8,10; got "5,20000"\n',
    );
    expect(stdout).toBe("");
  });

  it("a question line without gold_titles names its line, the field and the line format", async () => {
    const bad = join(root, "no-gold.jsonl");
    writeFileSync(bad, jsonl([QUESTION, { id: "q2", question: "Where was Mara Okafor born?" }]));
    const { stderr, code } = await run(["eval", "--questions", bad, "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /line 2: missing "gold_titles"; one JSON object per line: \{"id", "question", "gold_titles"/,
    );
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  it("without --corpus scores the indexed workspace; an empty workspace is an error", async () => {
    const args = ["--modes", "naive", "--k", "1", "--json", "--workspace", ws];
    const scored = await run(["eval", "--questions", questions, ...args]);
    expect(scored.code).toBe(0);
    expect(JSON.parse(scored.stdout).modes.naive.recall[1]).toBe(1);

    const empty = join(root, "empty-ws");
    await (await createKgrag({ env: {}, config: { workspace: empty } })).close();
    const refused = await run(["eval", "--questions", questions, "--workspace", empty]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/No documents to score against in .*empty-ws\. Give --corpus FILE/);
    expect(refused.stdout).toBe("");
  });

  it("warns once about gold titles no document has, listing a few", async () => {
    const strays = join(root, "strays.jsonl");
    const titles = ["Atlantis", "El Dorado", "Shangri-La", "Avalon", "Lemuria", "Mu", "Thule"];
    writeFileSync(strays, jsonl([QUESTION, { id: "q2", question: "Lost cities?", gold_titles: titles }]));
    const { stderr, code } = await run([
      "eval",
      "--questions",
      strays,
      "--modes",
      "naive",
      "--workspace",
      ws,
    ]);
    expect(code).toBe(0);
    const warnings = stderr.split("\n").filter((line) => line.includes("warning"));
    expect(warnings).toEqual([
      'kgrag: warning: 7 gold title(s) match no document title and can only score 0: "Atlantis", ' +
        '"El Dorado", "Shangri-La", "Avalon", "Lemuria" and 2 more',
    ]);
    // Titles compare as scoring compares them: case and spacing do not make a title unmatched.
    writeFileSync(strays, jsonl([{ ...QUESTION, gold_titles: ["lumen  ROBOTICS"] }]));
    expect(
      (await run(["eval", "--questions", strays, "--modes", "naive", "--workspace", ws])).stderr,
    ).not.toMatch(/warning/);
  });
});

describe("kgrag delete with unknown ids", () => {
  it("deletes nothing, exits 2 and names the unknown ids on stderr", async () => {
    const { stdout, stderr, code } = await run(["delete", "lumen", "n3", "bogus", "--workspace", ws]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /^kgrag: No document with id n3, bogus in this workspace; nothing was deleted\. .*kgrag status/m,
    );
    const status = JSON.parse((await run(["status", "--json", "--workspace", ws])).stdout);
    expect(status.documents.map((d: { id: string }) => d.id).sort()).toEqual(["lumen", "okafor"]);
  });
});

describe("kgrag entities link --strength", () => {
  it("a strength outside 1-10 is exit 2 in one line, and no rule is added", async () => {
    for (const strength of ["1e308", "11", "0", "strong"]) {
      const { stderr, code } = await run([
        "entities",
        "link",
        "Lumen Robotics",
        "Mara Okafor",
        "--description",
        "Mara Okafor founded Lumen Robotics.",
        "--strength",
        strength,
        "--workspace",
        ws,
      ]);
      expect(code).toBe(2);
      expect(stderr).toBe("kgrag: --strength must be a number from 1 to 10.\n");
    }
    const kg = await createKgrag({ env: {}, config: { workspace: ws } });
    try {
      expect(await kg.entities.rules()).not.toContainEqual(
        expect.objectContaining({ kind: "add-relationship" }),
      );
    } finally {
      await kg.close();
    }
  });
});

describe("query flags that would be silently ignored", () => {
  it("a --filter key given twice is exit 2", async () => {
    const { stderr, code } = await run([
      "query",
      "x",
      "--filter",
      "line=1",
      "--filter",
      "line=2",
      "--workspace",
      ws,
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--filter line given twice/);
  });

  it("a query option the engine refuses (an empty --response-type) is exit 2, bad input", async () => {
    const { stderr, code } = await run(["query", "x", "--response-type", "", "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Invalid query options/);
  });

  it("a --top-k or --chunk-top-k past 10,000 is exit 2 in one line, not a typed array's RangeError", async () => {
    for (const flag of ["--top-k", "--chunk-top-k"]) {
      const { stderr, code } = await run([
        "query",
        "x",
        "-m",
        "naive",
        flag,
        "99999999999",
        "--workspace",
        ws,
      ]);
      expect(code).toBe(2);
      expect(stderr.split("\n")[0]).toBe(
        `kgrag: option '${flag} <n>' argument '99999999999' is invalid. Expected a whole number from 1 to 10,000.`,
      );
    }
  });

  it("a config file's query.topK past its bound is exit 2 naming the key; a --batch line's is that line's error", async () => {
    const config = join(root, "huge-top-k.json");
    writeFileSync(config, JSON.stringify({ query: { topK: 99_999_999_999 } }));
    const configured = await run(["query", "x", "-m", "naive", "--config", config, "--workspace", ws]);
    expect(configured.code).toBe(2);
    expect(configured.stderr).toMatch(/query\.topK: Too big: expected number to be <=10000/);
    const batch = join(root, "huge-top-k.jsonl");
    writeFileSync(batch, jsonl([{ id: "a", question: "Who founded Lumen Robotics?", topK: 99_999_999_999 }]));
    const batched = await run(["query", "--batch", batch, "--workspace", ws]);
    expect(batched.code).toBe(2);
    expect(JSON.parse(batched.stdout)).toMatchObject({
      id: "a",
      line: 1,
      error: expect.stringMatching(/topK: Too big/),
    });
    expect(batched.stderr).not.toMatch(/typed array/);
  });

  it("--jsonl without --batch is exit 2", async () => {
    const { stderr, code } = await run(["query", "x", "--jsonl", "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--jsonl is for --batch FILE; use --json/);
  });
});

describe("kgrag export --out without --format", () => {
  it("takes the format from the extension", async () => {
    const out = join(root, "g.graphml");
    const { code } = await run(["export", "--out", out, "--workspace", ws]);
    expect(code).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/<graphml/);
    expect((await run(["export", "--out", join(root, "g.gexf"), "--workspace", ws])).code).toBe(0);
    expect(readFileSync(join(root, "g.gexf"), "utf8")).toMatch(/<gexf/);
  });

  it("says --format is needed when the extension names none, or there is no --out", async () => {
    const csv = await run(["export", "--out", join(root, "csv-folder"), "--workspace", ws]);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/Cannot tell the format from --out .*csv-folder .*needs --format neo4j-csv/);
    const none = await run(["export", "--workspace", ws]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /Give --format graphml\|gexf\|json\|neo4j-csv to write to standard output, or an --out file ending in/,
    );
  });

  it("--out - writes to standard output, as no --out does, in the --format given", async () => {
    // A real process: the export writes to the stream and waits for each write to be flushed.
    const exported = (...args: string[]) => startCli(["export", ...args, "--workspace", ws]).done;
    const json = await exported("--out", "-", "--format", "json");
    expect(json.code).toBe(0);
    expect(json.stdout).toBe((await exported("--format", "json")).stdout);
    expect(JSON.parse(json.stdout).nodes.length).toBeGreaterThan(0);
    const graphml = await exported("-o", "-", "--format", "graphml");
    expect(graphml.code).toBe(0);
    expect(graphml.stdout).toMatch(/^<\?xml[\s\S]*<graphml/);
    const formatless = await run(["export", "--out", "-", "--workspace", ws]);
    expect(formatless.code).toBe(2);
    expect(formatless.stderr).toMatch(/Give --format .* to write to standard output/);
    expect(existsSync(join(REPO_ROOT, "-"))).toBe(false);
  }, 120_000);
});

describe("configuration from the environment", () => {
  it("a bad KGRAG_STORAGE names the variable and the allowed values, exit 2", async () => {
    vi.stubEnv("KGRAG_STORAGE", "neo4jj");
    const { stderr, code } = await run(["status", "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toBe('kgrag: KGRAG_STORAGE must be one of sqlite, neo4j; got "neo4jj".\n');
  });

  it("a Neo4j setting that cannot work is exit 2, naming the variable, before any connection", async () => {
    vi.stubEnv("KGRAG_STORAGE", "neo4j");
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /needs NEO4J_URI/],
      [
        { NEO4J_URI: "http://localhost:7687", NEO4J_PASSWORD: "pw" },
        /NEO4J_URI must be bolt:\/\/ or neo4j:\/\//,
      ],
      [{ NEO4J_URI: "localhost:7687", NEO4J_PASSWORD: "pw" }, /NEO4J_URI must be/],
      [{ NEO4J_URI: "bolt://localhost:7687" }, /needs NEO4J_PASSWORD/],
    ];
    for (const [env, message] of cases) {
      vi.unstubAllEnvs();
      vi.stubEnv("KGRAG_STORAGE", "neo4j");
      vi.stubEnv("NEO4J_PASSWORD", undefined);
      vi.stubEnv("NEO4J_URI", undefined);
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      const { stderr, code } = await run(["status", "--workspace", ws]);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/Unknown scheme|Cannot use Neo4j/);
    }
  });
});

describe("nothing indexed", () => {
  it("an index run with nothing indexable leaves no workspace behind, new folder or existing one", async () => {
    const empty = join(root, "empty.txt");
    writeFileSync(empty, "  \n");
    const fresh = join(root, "never-created");
    const first = await run(["index", empty, "--workspace", fresh]);
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/Nothing to index/);
    expect(existsSync(fresh)).toBe(false);
    // The reason comes first; no summary of communities a run without a graph did not build.
    const said = first.stderr.split("\n").filter((line) => !/no LLM configured/.test(line));
    expect(said[0]).toBe(`kgrag: skipped ${empty}: empty document: no text to index`);
    expect(first.stderr).not.toMatch(/Communities:/);

    const existing = join(root, "existing-folder");
    mkdirSync(existing);
    writeFileSync(join(existing, "notes.md"), "# Mine\n");
    expect((await run(["index", empty, "--workspace", existing])).code).toBe(2);
    expect(readdirSync(existing)).toEqual(["notes.md"]);

    const query = await run(["query", "Who founded Lumen Robotics?", "--workspace", fresh]);
    expect(query.code).toBe(2);
    expect(query.stderr).toMatch(/No kgrag workspace at/);
  });

  it("every input refused leaves an existing graph untouched and prints only the reason", async () => {
    const stale = join(root, "stale-communities");
    // Indexed without communities: they are stale, and a run that settles the graph builds them.
    expect((await run(["index", corpus, "--workspace", stale, "--no-communities"])).code).toBe(0);
    const table = join(root, "table.csv");
    writeFileSync(table, "x,y\n1,2\n");
    const { stdout, stderr, code } = await run(["index", table, "--workspace", stale]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).not.toMatch(/Communities:/);
    expect(stderr).toMatch(/skipped .*table\.csv: unsupported file type \.csv/);
    expect(stderr).toMatch(/Nothing to index/);
    const kgrag = await createKgrag({ env: {}, config: { workspace: stale } });
    try {
      expect(await kgrag.services.store.listCommunities()).toEqual([]);
    } finally {
      await kgrag.close();
    }
  });

  it("a query on a workspace without documents says so, exit 2", async () => {
    const bare = join(root, "bare");
    const kgrag = await createKgrag({ env: {}, config: { workspace: bare } });
    await kgrag.close();
    for (const args of [["Who founded Lumen Robotics?"], ["--batch", questions]]) {
      const { stdout, stderr, code } = await run(["query", ...args, "--workspace", bare]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/holds no documents yet\. Index some first: kgrag index/);
      expect(stdout).not.toMatch(/Nothing in the indexed documents matches/);
    }
  });
});
