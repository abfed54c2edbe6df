import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerEvalCommand } from "../../src/cli/commands/eval.js";
import { registerQueryCommand } from "../../src/cli/commands/query.js";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";

const CORPUS = [
  {
    id: "lumen",
    title: "Lumen Robotics",
    text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.",
  },
  { id: "okafor", title: "Mara Okafor", text: "Mara Okafor was born in Ibadan, Nigeria, in 1984." },
  { id: "lisbon", title: "Lisbon", text: "Lisbon is the capital of Portugal, on the Tagus estuary." },
];

describe("kgrag query and eval commands (offline)", () => {
  let root: string;
  let kgrag: Kgrag;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-query-cli-"));
    writeFileSync(join(root, "corpus.jsonl"), CORPUS.map((d) => JSON.stringify(d)).join("\n"));
    kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
  });

  afterAll(async () => {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Runs one command line against the shared workspace and returns what it printed. */
  async function run(...args: string[]): Promise<string> {
    return (await runCapturing(...args)).stdout;
  }

  async function runCapturing(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    const program = new Command().exitOverride();
    // The workspace stays open across commands; "close" is a no-op here.
    const open = async () => ({ services: kgrag.services, index: kgrag.index, close: async () => {} });
    registerQueryCommand(program, open);
    registerEvalCommand(program, open);
    const printed: string[] = [];
    const errors: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    process.exitCode = 0;
    try {
      await program.parseAsync(["node", "kgrag", ...args]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return { stdout: printed.join(""), stderr: errors.join(""), code };
  }

  it("eval indexes the corpus and scores every mode against gold titles", async () => {
    const questions = join(root, "questions.jsonl");
    writeFileSync(
      questions,
      `${JSON.stringify({ id: "q1", question: "Where was the founder of Lumen Robotics born?", gold_titles: ["Lumen Robotics", "Mara Okafor"], type: "bridge" })}\n`,
    );
    const report = JSON.parse(
      await run(
        "eval",
        "--questions",
        questions,
        "--corpus",
        join(root, "corpus.jsonl"),
        "--k",
        "1,2",
        "--json",
      ),
    );
    expect(Object.keys(report.modes)).toEqual(["naive", "local", "global", "hybrid", "mix"]);
    expect(report.ks).toEqual([1, 2]);
    // The founder's birthplace is reached through the theme "born": global finds both passages.
    expect(report.modes.global.recall[2]).toBe(1);
    expect(report.modes.mix.allGold[1]).toBe(0);
    expect(report.modes.mix.mrr).toBe(1);
    expect(report.modes.mix.byType.bridge.questions).toBe(1);
    const table = await run(
      "eval",
      "--questions",
      questions,
      "--corpus",
      join(root, "corpus.jsonl"),
      "--modes",
      "naive,mix",
    );
    expect(table).toMatch(/mode\s+all-gold@5\s+all-gold@8\s+all-gold@10/);
    expect(table).toMatch(/\nmix\s+1\.00/);
  });

  it("query prints the answer and numbered sources, or the JSON result", async () => {
    const human = await run("query", "Where was Mara Okafor born?", "--mode", "naive");
    expect(human).toMatch(/^Extractive answer/);
    expect(human).toMatch(/Sources:\n\[1\] Mara Okafor \(document okafor, chunk \S+, chars \d+-\d+\)/);
    const json = JSON.parse(
      await run("query", "Where was Mara Okafor born?", "--mode", "local", "--json", "--top-k", "5"),
    );
    expect(json.mode).toBe("local");
    expect(json.references[0].n).toBe(1);
  });

  it("query --doc and --filter restrict the sources", async () => {
    const json = JSON.parse(
      await run("query", "Lumen Robotics founder", "--json", "--doc", "lisbon", "--context-only"),
    );
    expect(json.references.every((r: { docId: string }) => r.docId === "lisbon")).toBe(true);
    const filtered = JSON.parse(
      await run("query", "Lumen Robotics founder", "--json", "--filter", "line=2", "--context-only"),
    );
    expect(filtered.references.map((r: { docId: string }) => r.docId)).toEqual(["okafor"]);
    // Each exists, but no document is both: the answer and a warning on stderr say so.
    const neither = await runCapturing(
      "query",
      "Lumen Robotics founder",
      "--doc",
      "lisbon",
      "--filter",
      "line=2",
    );
    expect(neither.stdout).toMatch(/^No indexed document is in this question's scope/);
    expect(neither.stderr).toMatch(/kgrag: warning: No indexed document matches the scope/);
  });

  it("query --batch prints one JSON result per line, ids echoed, in input order", async () => {
    const batch = join(root, "batch.jsonl");
    writeFileSync(
      batch,
      ["z", "a", "m"]
        .map((id) => JSON.stringify({ id, question: `Who founded Lumen Robotics? ${id}` }))
        .join("\n"),
    );
    const lines = (await run("query", "--batch", batch, "--mode", "mix", "--context-only", "--jsonl"))
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(["z", "a", "m"]);
    expect(lines.every((l) => JSON.parse(l).answer === "")).toBe(true);
  });

  it("query --batch answers the good lines in order and reports each bad line in its place", async () => {
    const batch = join(root, "mixed.jsonl");
    writeFileSync(
      batch,
      [
        JSON.stringify({ id: "first", question: "Where was Mara Okafor born?" }),
        '{"id": "broken", "question": "unterminated',
        JSON.stringify({ id: 3 }),
        "",
        JSON.stringify({ id: "last", question: "What is the capital of Portugal?" }),
      ].join("\n"),
    );
    const { stdout, stderr, code } = await runCapturing(
      "query",
      "--batch",
      batch,
      "--context-only",
      "--jsonl",
    );
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.line ?? null, "error" in l])).toEqual([
      ["first", null, false],
      [null, 2, true],
      ["3", 3, true],
      ["last", null, false],
    ]);
    expect(lines[1].error).toMatch(/not valid JSON/);
    expect(lines[2].error).toMatch(/missing "question"/);
    expect(lines[0].references[0].docId).toBe("okafor");
    expect(stderr).toMatch(/2 of 4 line\(s\) not a question \(line 2, 3\); 2 answered/);
    expect(code).toBe(2);
  });

  it("query --batch runs a line with its own query options over the flags, and refuses an unknown key", async () => {
    const batch = join(root, "options.jsonl");
    writeFileSync(
      batch,
      [
        JSON.stringify({ id: "q5", question: "Who founded Lumen Robotics?", mode: "local", topK: 3 }),
        JSON.stringify({ id: "q6", question: "Who founded Lumen Robotics?" }),
        JSON.stringify({ id: "q7", question: "Who founded Lumen Robotics?", mdoe: "local" }),
      ].join("\n"),
    );
    const { stdout, stderr, code } = await runCapturing("query", "--batch", batch, "--context-only");
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.mode ?? l.error])).toEqual([
      ["q5", "local"],
      ["q6", "mix"],
      ["q7", expect.stringMatching(/^line 3: unknown key "mdoe" \(did you mean "mode"\?\)/)],
    ]);
    expect(stderr).toMatch(/1 of 3 line\(s\) not a question \(line 3\)/);
    expect(code).toBe(2);
  });

  it("query --doc / --filter naming what no document has is an error saying what exists", async () => {
    await expect(run("query", "x", "--doc", "lisbon", "--doc", "lisbn")).rejects.toThrow(
      /Unknown document id "lisbn".*kgrag status/,
    );
    await expect(run("query", "x", "--filter", "lang=en")).rejects.toThrow(
      /metadata key "lang".*Keys that exist: .*"line"/,
    );
    await expect(run("query", "x", "--filter", "line=9")).rejects.toThrow(
      /No document has line=9\. Values of "line" that exist: "1", "2", "3"/,
    );
    const batch = join(root, "one.jsonl");
    writeFileSync(batch, JSON.stringify({ id: "q", question: "x" }));
    await expect(run("query", "--batch", batch, "--doc", "nope")).rejects.toThrow(
      /Unknown document id "nope"/,
    );
  });

  it("refuses a bad invocation with a message that says what to do", async () => {
    await expect(run("query")).rejects.toThrow(/Give a question/);
    await expect(run("query", "x", "--filter", "novalue")).rejects.toThrow(/--filter expects key=value/);
  });
});
