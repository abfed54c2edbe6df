import { afterEach, describe, expect, it } from "vitest";
import { runEval } from "../../src/query/eval/run-eval.js";
import { buildFixture, type Fixture, MULTI_HOP, MULTI_HOP_KEYWORDS, StageChat } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const QUESTIONS = [
  {
    id: "q1",
    question: "Where does the director of the film Big Stone Gap live?",
    answer: "Greenwich Village",
    aliases: ["Greenwich Village, New York"],
    gold_titles: ["Title of film", "Title of person"],
    type: "bridge",
  },
  {
    id: "q2",
    question: "Which river flows through Vienna?",
    answer: "Danube",
    aliases: [],
    gold_titles: ["Title of danube"],
    type: "comparison",
  },
];

describe("runEval", () => {
  it("scores retrieval per mode and question type", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    const report = await runEval(fixture.services, QUESTIONS, { modes: ["naive", "local"], ks: [1, 3] });
    expect(Object.keys(report.modes)).toEqual(["naive", "local"]);
    const naive = report.modes.naive!;
    expect(naive.questions).toBe(2);
    expect(naive.exactMatch).toBeUndefined();
    for (const k of [1, 3]) {
      expect(naive.allGold[k]).toBeGreaterThanOrEqual(0);
      expect(naive.allGold[k]).toBeLessThanOrEqual(naive.recall[k] ?? 0);
    }
    expect(Object.keys(naive.byType).sort()).toEqual(["bridge", "comparison"]);
    // One gold passage cannot all be in the top 1 when there are two.
    expect(naive.byType.bridge?.allGold[1]).toBe(0);
  });

  it("without an LLM scores the extractive answers by whether they hold the gold answer", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    const report = await runEval(fixture.services, QUESTIONS, { modes: ["naive"], ks: [3] });
    const naive = report.modes.naive!;
    // "Which river flows through Vienna?" is answered by the sentence naming the Danube.
    expect(naive.byType.comparison?.answerContains).toBe(1);
    expect(naive.answerContains).toBeGreaterThanOrEqual(0.5);
    expect(naive.exactMatch).toBeUndefined();
    const none = await runEval(fixture.services, QUESTIONS, { modes: ["naive"], ks: [3], answers: false });
    expect(none.modes.naive?.answerContains).toBeUndefined();
  });

  it("with an LLM also scores the answers by exact match and token F1, citations stripped", async () => {
    const chat = new StageChat({
      keywords: () => MULTI_HOP_KEYWORDS,
      answer: (request) =>
        String(request.messages.at(-1)?.content).includes("Vienna") ? "The Danube [1]" : "New York [1]",
    });
    fixture = await buildFixture(MULTI_HOP, { chat });
    const report = await runEval(fixture.services, QUESTIONS, { modes: ["naive"], ks: [3] });
    const naive = report.modes.naive!;
    expect(naive.exactMatch).toBe(0.5);
    expect(naive.byType.comparison?.f1).toBe(1);
    // "New York" against "Greenwich Village, New York": 2 of 2 predicted tokens, 2 of 4 true.
    expect(naive.byType.bridge?.f1).toBeCloseTo((2 * 1 * 0.5) / 1.5);
    const prompt = chat.requests.find((r) => r.stage === "answer")?.messages[0]?.content ?? "";
    expect(prompt).toMatch(/only the answer itself/);
  });
});
