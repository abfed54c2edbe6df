import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type BatchOutcome, readBatchFile, runBatch } from "../../src/query/batch.js";
import { buildFixture, type Fixture, MULTI_HOP, StageChat } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  it("reads {id, question} lines and names the line of a bad one", async () => {
    const good = join(tmpdir(), `kgrag-batch-${process.pid}-good.jsonl`);
    await writeFile(good, '{"id": 1, "question": "First?"}\n\n{"id": "x", "question": "Second?"}\n');
    expect(await readBatchFile(good)).toEqual([
      { id: "1", question: "First?" },
      { id: "x", question: "Second?" },
    ]);
    const bad = join(tmpdir(), `kgrag-batch-${process.pid}-bad.jsonl`);
    await writeFile(bad, '{"id": 1, "question": "First?"}\n{"id": 2}\n');
    await expect(readBatchFile(bad)).rejects.toThrow(/bad\.jsonl:2: expected \{"id"/);
  });
});
