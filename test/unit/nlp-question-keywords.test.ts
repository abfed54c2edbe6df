import { describe, expect, it } from "vitest";
import { questionKeywords } from "../../src/nlp/question-keywords.js";

describe("questionKeywords", () => {
  it("puts names and noun phrases low and lemmatised theme words high", () => {
    expect(questionKeywords("Are Christopher Nolan and Sathish Kalathil both film directors?")).toEqual({
      low: ["Christopher Nolan", "Sathish Kalathil", "film director"],
      high: ["film", "director"],
    });
  });

  it("lemmatises verbs and keeps question words out", () => {
    const keywords = questionKeywords("Who directed the film that was shot in Leland, North Carolina?");
    expect(keywords.low).toEqual(["Leland", "North Carolina", "film"]);
    expect(keywords.high).toEqual(["direct", "film", "shoot"]);
  });

  it("handles Chinese questions", () => {
    const keywords = questionKeywords("马云在哪座城市创立了阿里巴巴？");
    expect(keywords.low).toEqual(expect.arrayContaining(["马云", "阿里巴巴"]));
    expect(keywords.high).toContain("创立");
    // jieba's HMM reads 哪座 ("which") as an unknown word; a question word names nothing.
    expect(keywords.low).not.toContain("哪座");
  });

  it("falls back to the question itself when nothing is found", () => {
    expect(questionKeywords("Why?")).toEqual({ high: [], low: ["Why?"] });
  });
});
