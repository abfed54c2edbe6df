import { describe, expect, it } from "vitest";
import {
  EvalQuestionsError,
  parseEvalQuestions,
  unmatchedGoldTitles,
} from "../../src/query/eval/questions.js";

const line = (value: object) => JSON.stringify(value);
const good = { id: 1, question: "Who?", gold_titles: ["A"] };

describe("parseEvalQuestions", () => {
  it("reads question lines, skipping blank ones, ids as text and aliases defaulted", () => {
    const questions = parseEvalQuestions(
      `${line(good)}\n\n${line({ ...good, id: "b", answer: "x" })}\n`,
      "q",
    );
    expect(questions.map((q) => [q.id, q.aliases, q.answer])).toEqual([
      ["1", [], undefined],
      ["b", [], "x"],
    ]);
  });

  it.each([
    [
      { id: 2, question: "Who?" },
      /^q, line 2: missing "gold_titles"; one JSON object per line: \{"id", "question", "gold_titles"/,
    ],
    [{ ...good, gold_titles: "A" }, /line 2: "gold_titles" must be a list of document titles;/],
    [{ ...good, gold_titles: [] }, /line 2: "gold_titles" is empty/],
    [{ gold_titles: ["A"] }, /line 2: missing "id", missing "question";/],
    [{ ...good, question: "  " }, /line 2: "question" is empty;/],
  ])("%o: names the line and the field", (bad, message) => {
    const attempt = () => parseEvalQuestions(`${line(good)}\n${line(bad)}`, "q");
    expect(attempt).toThrow(EvalQuestionsError);
    expect(attempt).toThrow(message);
  });

  it("refuses a line that is not JSON, and a file with no questions", () => {
    expect(() => parseEvalQuestions("{oops", "q")).toThrow(/^q, line 1: not valid JSON; one JSON object/);
    expect(() => parseEvalQuestions("\n \n", "q")).toThrow(/^q has no questions;/);
  });
});

describe("unmatchedGoldTitles", () => {
  it("lists each gold title no document has once, comparing titles as scoring does", () => {
    const questions = parseEvalQuestions(
      [
        { id: 1, question: "?", gold_titles: ["Lisbon", "Atlantis"] },
        { id: 2, question: "?", gold_titles: ["ＬＩＳＢＯＮ ", "Atlantis", "Mu"] },
      ]
        .map(line)
        .join("\n"),
      "q",
    );
    expect(unmatchedGoldTitles(questions, ["lisbon", "Porto"])).toEqual(["Atlantis", "Mu"]);
  });
});
