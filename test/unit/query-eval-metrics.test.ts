import { describe, expect, it } from "vitest";
import { answerStatements } from "../../src/query/answer/answer.js";
import { EXTRACTIVE_LABEL } from "../../src/query/answer/extractive-answer.js";
import {
  answerContains,
  exactMatch,
  normalizeAnswer,
  scoreRetrieval,
  tokenF1,
} from "../../src/query/eval/metrics.js";

describe("retrieval scores", () => {
  const retrieved = ["Other", "Big Stone Gap (film)", "Noise", "adriana  trigiani", "More"];
  const gold = ["Big Stone Gap (film)", "Adriana Trigiani"];

  it("all-gold@K is 1 only when every gold passage is in the top K (titles compared loosely)", () => {
    const s = scoreRetrieval(retrieved, gold, [2, 4]);
    expect(s.allGold).toEqual({ 2: 0, 4: 1 });
    expect(s.recall).toEqual({ 2: 0.5, 4: 1 });
  });

  it("MRR is 1/rank of the first gold passage, 0 when none", () => {
    expect(scoreRetrieval(retrieved, gold, [5]).reciprocalRank).toBeCloseTo(1 / 2);
    expect(scoreRetrieval(["x"], gold, [5]).reciprocalRank).toBe(0);
  });
});

describe("answer scores", () => {
  it("normalises like SQuAD", () => {
    expect(normalizeAnswer("The  Eiffel Tower!")).toBe("eiffel tower");
  });

  it("exact match accepts any alias", () => {
    expect(
      exactMatch("Greenwich Village, New York City", [
        "Greenwich Village",
        "Greenwich Village, New York City",
      ]),
    ).toBe(1);
    expect(exactMatch("Paris", ["London"])).toBe(0);
  });

  it("token F1 gives partial credit", () => {
    expect(tokenF1("Greenwich Village", ["Greenwich Village, New York City"])).toBeCloseTo(
      (2 * 1 * 0.4) / 1.4,
    );
    expect(tokenF1("nothing", ["something"])).toBe(0);
  });

  it("answer contains: the gold answer or an alias as whole words anywhere in the answer", () => {
    const answer = "Extractive answer: It was directed by Stephen King. [2]";
    expect(answerContains(answer, ["Stephen King"])).toBe(1);
    expect(answerContains(answer, ["King Kong", "stephen  king"])).toBe(1);
    expect(answerContains(answer, ["Kin"])).toBe(0);
    expect(answerContains(answer, [""])).toBe(0);
  });

  it("scores what an offline answer states, not its label's 'no LLM'", () => {
    const answer = `${EXTRACTIVE_LABEL}\nMara Quell is a film director. [1]`;
    expect(answerContains(answer, ["no"])).toBe(1);
    expect(answerContains(answerStatements(answer), ["no"])).toBe(0);
    expect(answerStatements(answer)).toBe("Mara Quell is a film director. [1]");
  });
});
