import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { QueryResult } from "../../src/query/result.js";
import { modeAndQuestion } from "../../src/server/routes/chat-turns.js";
import { answerWithSources } from "../../src/server/routes/ollama-answer.js";
import { hideServerPaths, shownMetadata } from "../../src/server/server-paths.js";
import { workspaceFolders } from "../../src/server/workspaces.js";

const root = mkdtempSync(join(tmpdir(), "kgrag-serve-inputs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("kgrag serve: what it is given", () => {
  it("refuses a --workspace that is a file, and takes a missing folder as a new workspace", () => {
    const file = join(root, "notes.txt");
    writeFileSync(file, "not a workspace");
    expect(() => workspaceFolders([file], {})).toThrow(/is a file; give a workspace folder/);
    const missing = join(root, "new", "workspace");
    expect(workspaceFolders([missing], {})).toEqual([missing]);
    const empty = join(root, "empty");
    mkdirSync(empty);
    expect(workspaceFolders([empty], {})).toEqual([empty]);
  });

  it("lists an Ollama answer's cited passages and cited community reports under Sources", () => {
    const result: QueryResult = {
      mode: "global",
      answer: "Lumen Robotics builds robots [1] and leads the Lisbon cluster [C:c1-7].",
      keywords: { high: [], low: [] },
      context: {
        entities: [],
        relationships: [],
        chunks: [],
        communities: [
          { id: "c1-7", level: 1, title: "Lisbon robotics", summary: "" },
          { id: "c0-2", level: 0, title: "Not cited", summary: "" },
        ],
      },
      references: [
        { n: 1, docId: "lumen", title: "Lumen Robotics", chunkId: "k1", start: 0, end: 10 },
        { n: 2, docId: "porto", title: "University of Porto", chunkId: "k2", start: 0, end: 10 },
      ],
      usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0, cost: 0 },
      timings: { retrievalMs: 1, totalMs: 1 },
    };
    const text = answerWithSources(result);
    expect(text).toBe(
      `${result.answer}\n\nSources:\n[1] Lumen Robotics (lumen, passage k1)\n` +
        "[C:c1-7] Lisbon robotics (community report, level 1)",
    );
  });

  it("names the pages of a cited PDF passage in an Ollama answer's Sources, as the CLI does", () => {
    const result: QueryResult = {
      mode: "naive",
      answer: "Mara Quell surveyed Carrow Bay [1] and founded Lumora Optics [2].",
      keywords: { high: [], low: [] },
      context: { entities: [], relationships: [], chunks: [], communities: [] },
      references: [
        { n: 1, docId: "brief", title: "brief.pdf", chunkId: "k1", start: 0, end: 10, page: 1, pageEnd: 2 },
        { n: 2, docId: "memo", title: "memo.pdf", chunkId: "k2", start: 0, end: 10, page: 3 },
      ],
      usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0, cost: 0 },
      timings: { retrievalMs: 1, totalMs: 1 },
    };
    expect(answerWithSources(result)).toBe(
      `${result.answer}\n\nSources:\n[1] brief.pdf (brief, page 1-2, passage k1)\n` +
        "[2] memo.pdf (memo, page 3, passage k2)",
    );
  });

  it("ends an Ollama answer with the query's warnings, which a chat client has no other place for", () => {
    const result: QueryResult = {
      mode: "global",
      answer: "Lumen Robotics builds robots [1].",
      keywords: { high: [], low: [] },
      context: { entities: [], relationships: [], chunks: [], communities: [] },
      references: [{ n: 1, docId: "lumen", title: "Lumen Robotics", chunkId: "k1", start: 0, end: 10 }],
      usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0, cost: 0 },
      timings: { retrievalMs: 1, totalMs: 1 },
      warnings: [
        "2 documents are not fully indexed",
        "global mode answered from the relationships' passages only",
      ],
    };
    expect(answerWithSources(result)).toBe(
      `${result.answer}\n\nSources:\n[1] Lumen Robotics (lumen, passage k1)\n\nWarnings:\n` +
        "- 2 documents are not fully indexed\n- global mode answered from the relationships' passages only",
    );
    // Without any passage to cite, the warnings alone follow the answer.
    const nothing = {
      ...result,
      answer: "Nothing in the indexed documents matches this question.",
      references: [],
    };
    expect(answerWithSources(nothing)).toBe(
      `${nothing.answer}\n\nWarnings:\n- 2 documents are not fully indexed\n` +
        "- global mode answered from the relationships' passages only",
    );
  });

  it("reads an Ollama message's mode prefix, alone or before a question", () => {
    expect(modeAndQuestion("/local  Who founded Lumen?")).toEqual({
      mode: "local",
      question: "Who founded Lumen?",
    });
    expect(modeAndQuestion("/GLOBAL")).toEqual({ mode: "global", question: "" });
    expect(modeAndQuestion("/unknown thing")).toEqual({
      mode: "mix",
      question: "/unknown thing",
      unknownPrefix: "/unknown",
    });
    // A path is no prefix.
    expect(modeAndQuestion("/etc/hosts holds what?")).toEqual({
      mode: "mix",
      question: "/etc/hosts holds what?",
    });
    expect(modeAndQuestion("  plain question ")).toEqual({ mode: "mix", question: "plain question" });
  });

  it("shows API clients no server path: uploads by name, workspace files inside it, others by their last part", () => {
    const ws = join(root, "ws");
    expect(hideServerPaths(`${join(ws, "server", "uploads", "notes.jsonl")}:2 is not JSON`, ws)).toBe(
      "notes.jsonl:2 is not JSON",
    );
    expect(hideServerPaths(`cannot open ${join(ws, "kgrag.sqlite")}`, ws)).toBe("cannot open kgrag.sqlite");
    expect(hideServerPaths(`${ws} is locked`, ws)).toBe("the workspace is locked");
    expect(hideServerPaths("ENOENT: open '/srv/data/secret/report.pdf'", ws)).toBe(
      "ENOENT: open 'report.pdf'",
    );
    // Routes, fractions and URLs are no paths.
    const plain = "retry when it ends (GET /api/v1/jobs/1); 3/4 chunks; see https://example.com/a/b";
    expect(hideServerPaths(plain, ws)).toBe(plain);
  });

  it("hides the workspace only as a folder of its own, and paths whose folders hold spaces in full", () => {
    const ws = join(root, "ws");
    // A sibling folder whose name starts with the workspace's is another folder, hidden as any other.
    expect(hideServerPaths(`open ${ws}2/a.md`, ws)).toBe("open a.md");
    expect(hideServerPaths(`open ${ws}-old/notes/a.md`, ws)).toBe("open a.md");
    expect(hideServerPaths(`${ws}: locked. ${ws}.`, ws)).toBe("the workspace: locked. the workspace.");
    // Folders with spaces: under the workspace, under its uploads, and anywhere else.
    const spaced = join(root, "John Smith", "my ws");
    expect(hideServerPaths(`cannot read ${join(spaced, "sub dir", "plan.md")}`, spaced)).toBe(
      `cannot read ${join("sub dir", "plan.md")}`,
    );
    expect(hideServerPaths(`${join(spaced, "server", "uploads", "a b.md")} is empty`, spaced)).toBe(
      "a b.md is empty",
    );
    expect(hideServerPaths("ENOENT: open '/Users/John Smith/secret/plan.md'", ws)).toBe(
      "ENOENT: open 'plan.md'",
    );
    expect(hideServerPaths("cannot open /Users/John Smith/secret plans/plan.md now", ws)).toBe(
      "cannot open plan.md now",
    );
    // Words around a path stay.
    expect(hideServerPaths("copy /a/b to /c/d", ws)).toBe("copy b to d");
  });

  it("shows a document's source file by its upload name, its path in the workspace, or its last part", () => {
    const ws = join(root, "ws");
    const uploaded = join(ws, "server", "uploads", "notes.md");
    expect(shownMetadata({ source: uploaded, format: "markdown" }, uploaded, ws)).toEqual({
      source: "notes.md",
      format: "markdown",
    });
    const inside = join(ws, "docs", "a b", "plan.md");
    expect(shownMetadata({ source: inside }, inside, ws)).toEqual({ source: join("docs", "a b", "plan.md") });
    const elsewhere = "/srv/John Smith/corpus/notes.jsonl";
    expect(shownMetadata({ source: elsewhere, format: "jsonl", line: 3 }, elsewhere, ws)).toEqual({
      source: "notes.jsonl",
      format: "jsonl",
      line: 3,
    });
    // Values of the caller's own (a raw text's metadata, a JSONL line's) are left as they are.
    const own = { team: "/robotics/arms", source: "https://example.com/a/b", year: 2015 };
    expect(shownMetadata(own, null, ws)).toEqual(own);
  });
});
