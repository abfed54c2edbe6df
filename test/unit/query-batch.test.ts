import { afterEach, describe, expect, it } from "vitest";
import { type BatchOutcome, parseBatchLines, runBatch } from "../../src/query/batch.js";
import { ScopeError } from "../../src/query/graph/scope.js";
import { buildFixture, type Fixture, MULTI_HOP, StageChat } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The JSONL lines run offline as a batch of naive, context-only queries: what it emitted, in order. */
async function offlineBatch(lines: string[]): Promise<BatchOutcome[]> {
  fixture = await buildFixture(MULTI_HOP, { chat: null });
  const emitted: BatchOutcome[] = [];
  const entries = parseBatchLines(lines.join("\n"));
  await runBatch(fixture.services, entries, { mode: "naive", contextOnly: true }, (o) => emitted.push(o));
  return emitted;
}

describe("batch queries", () => {
  it("emit one result per question in input order, ids echoed, even when later ones finish first", async () => {
    const finished: string[] = [];
    const chat = new StageChat({
      keywords: () => JSON.stringify({ high_level_keywords: [], low_level_keywords: ["Big Stone Gap"] }),
      answer: async (request) => {
        const question = String(request.messages.at(-1)?.content);
        // The first question answers slowest, so completion order is the reverse of input order.
        await sleep(question.startsWith("q1") ? 120 : question.startsWith("q2") ? 60 : 0);
        finished.push(question.slice(0, 2));
        return `answer to ${question.slice(0, 2)}`;
      },
    });
    fixture = await buildFixture(MULTI_HOP, { chat });
    const questions = [
      { id: "a", question: "q1 Big Stone Gap?" },
      { id: "b", question: "q2 Big Stone Gap?" },
      { id: "c", question: "q3 Big Stone Gap?" },
    ];
    const emitted: BatchOutcome[] = [];
    await runBatch(fixture.services, questions, { mode: "local" }, (o) => emitted.push(o));
    expect(finished).toEqual(["q3", "q2", "q1"]);
    expect(emitted.map((o) => o.id)).toEqual(["a", "b", "c"]);
    expect(emitted.map((o) => ("answer" in o ? o.answer : o.error))).toEqual([
      "answer to q1",
      "answer to q2",
      "answer to q3",
    ]);
  });

  it("reports a failing question on its line and carries on", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    const emitted: BatchOutcome[] = [];
    await runBatch(
      fixture.services,
      [
        { id: "1", question: "Big Stone Gap" },
        { id: "2", question: "Big Stone Gap" },
      ],
      { mode: "naive", contextOnly: true, totalTokens: 10 },
      (o) => emitted.push(o),
    );
    expect(emitted).toHaveLength(2);
    expect(emitted.every((o) => "error" in o && /Invalid query options/.test(o.error))).toBe(true);
  });

  it("reads {id, question} lines with their line numbers, blank lines skipped", () => {
    expect(
      parseBatchLines('{"id": 1, "question": "First?"}\n\n{"id": "x", "question": " Second? "}\n'),
    ).toEqual([
      { id: "1", question: "First?", line: 1 },
      { id: "x", question: "Second?", line: 3 },
    ]);
    expect(parseBatchLines("\n  \n")).toEqual([]);
  });

  it("turns each bad line into an error in its place, keeping the id when it is readable", () => {
    const entries = parseBatchLines(
      [
        '{"id": "ok", "question": "Fine?"}',
        "{not json",
        '{"id": 7}',
        '{"id": "e", "question": "   "}',
        '["id", "question"]',
        '{"question": "Who?"}',
        '{"id": {"x": 1}, "question": 3}',
      ].join("\n"),
    );
    expect(entries[0]).toEqual({ id: "ok", question: "Fine?", line: 1 });
    expect(entries.slice(1).map((e) => ("error" in e ? [e.id, e.line] : e))).toEqual([
      [null, 2],
      ["7", 3],
      ["e", 4],
      [null, 5],
      [null, 6],
      [null, 7],
    ]);
    const errors = entries.slice(1).map((e) => ("error" in e ? e.error : ""));
    expect(errors[0]).toMatch(/^line 2 is not valid JSON/);
    expect(errors[1]).toMatch(/^line 3: missing "question"/);
    expect(errors[2]).toMatch(/^line 4: "question" is empty/);
    expect(errors[3]).toMatch(/^line 5: not a JSON object/);
    expect(errors[4]).toMatch(/^line 6: missing "id"/);
    expect(errors[5]).toMatch(/^line 7: "id" must be a string or a number, "question" must be text/);
  });

  it("reads a line's query options, checked as query options, with the line number", () => {
    const entries = parseBatchLines(
      [
        '{"id": "q5", "question": "Who?", "mode": "local", "topK": 3}',
        '{"id": "q6", "question": "Who?", "mdoe": "local"}',
        '{"id": "q7", "question": "Who?", "topK": "3", "mode": "loud"}',
        '{"id": "q8", "question": "Who?", "filter": {"year": 2015}}',
      ].join("\n"),
    );
    expect(entries[0]).toEqual({ id: "q5", question: "Who?", line: 1, options: { mode: "local", topK: 3 } });
    const errors = entries.slice(1).map((e) => ("error" in e ? e.error : ""));
    expect(errors[0]).toMatch(/^line 2: unknown key "mdoe" \(did you mean "mode"\?\); each line must be/);
    expect(errors[1]).toMatch(/^line 3: mode: .*"naive".*, topK: .*expected number/);
    expect(errors[2]).toMatch(/^line 4: unknown key "filter" \(did you mean "metadata"\?\)/);
    expect(entries.slice(1).map((e) => e.id)).toEqual(["q6", "q7", "q8"]);
  });

  it("runs each line with its own options over the batch's", async () => {
    const emitted = await offlineBatch([
      '{"id": "q5", "question": "Big Stone Gap", "mode": "local", "chunkTopK": 1}',
      '{"id": "q6", "question": "Big Stone Gap"}',
      '{"id": "q7", "question": "Big Stone Gap", "docIds": ["lyon"]}',
      '{"id": "q8", "question": "Big Stone Gap", "docIds": ["nope"]}',
    ]);
    const [local, batchWide, scoped, unknownDoc] = emitted;
    expect(local).toMatchObject({ id: "q5", mode: "local", answer: "" });
    expect(local && "context" in local && local.context.chunks.length).toBe(1);
    expect(batchWide).toMatchObject({ id: "q6", mode: "naive", answer: "" });
    expect(scoped && "references" in scoped && scoped.references.every((r) => r.docId === "lyon")).toBe(true);
    // A line's own scope fails that line only.
    expect(unknownDoc).toMatchObject({
      id: "q8",
      line: 4,
      error: expect.stringMatching(/Unknown document id "nope"/),
    });
  });

  it("answers every good line in input order around the bad ones", async () => {
    const emitted = await offlineBatch([
      "oops",
      '{"id": "a", "question": "Wise County coal"}',
      '{"id": 2}',
      '{"id": "b", "question": "Lyon food"}',
    ]);
    expect(emitted.map((o) => [o.id, "error" in o])).toEqual([
      [null, true],
      ["a", false],
      ["2", true],
      ["b", false],
    ]);
    expect(emitted[1]).toHaveProperty("context.chunks.0.docId", "town");
    expect(emitted[3]).toHaveProperty("context.chunks.0.docId", "lyon");
  });

  it("fails once, before any question runs, when the scope names an unknown document", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    const emitted: BatchOutcome[] = [];
    const run = runBatch(
      fixture.services,
      [{ id: "1", question: "Big Stone Gap" }],
      { mode: "naive", docIds: ["nope"] },
      (o) => emitted.push(o),
    );
    await expect(run).rejects.toBeInstanceOf(ScopeError);
    expect(emitted).toEqual([]);
  });
});
