import { describe, expect, it } from "vitest";
import { askProblem, unreadableNumber } from "../../web/src/views/ask-problems.js";

const NO_OPTIONS = { topK: "", chunkTopK: "", totalTokens: "" };

describe("web app: what stops a question from being asked", () => {
  it("asks for a question when there is none", () => {
    expect(askProblem("", NO_OPTIONS)).toEqual({ field: "question", message: "Type a question first." });
    expect(askProblem("  \n ", NO_OPTIONS)?.field).toBe("question");
  });

  it("names an option below its minimum or not a whole number", () => {
    expect(askProblem("Who?", { ...NO_OPTIONS, totalTokens: "100" })).toEqual({
      field: "totalTokens",
      message: "totalTokens must be a whole number of at least 256, not 100.",
    });
    expect(askProblem("Who?", { ...NO_OPTIONS, topK: "-5" })?.field).toBe("topK");
    expect(askProblem("Who?", { ...NO_OPTIONS, chunkTopK: "2.5" })?.field).toBe("chunkTopK");
    expect(askProblem("Who?", { ...NO_OPTIONS, topK: "0" })?.field).toBe("topK");
  });

  it("names an option whose text the browser could not read as a number, though its value is empty", () => {
    // A number input holding "ten", "1e" or "--" has the value "" and validity.badInput set.
    const unreadable = { validity: { badInput: true } };
    const readable = { validity: { badInput: false } };
    expect(unreadableNumber(unreadable)).toBe(true);
    expect(unreadableNumber(readable)).toBe(false);
    expect(unreadableNumber(null)).toBe(false);
    expect(askProblem("Who?", NO_OPTIONS, { topK: readable, chunkTopK: unreadable })).toEqual({
      field: "chunkTopK",
      message: "chunkTopK must be a whole number of at least 1; what is typed there is not a number.",
    });
    // The question comes first, and inputs that read well stop nothing.
    expect(askProblem("", NO_OPTIONS, { topK: unreadable })?.field).toBe("question");
    expect(askProblem("Who?", NO_OPTIONS, { topK: readable, chunkTopK: null })).toBeUndefined();
  });

  it("names an option above the most the server takes, which it would refuse", () => {
    expect(askProblem("Who?", { ...NO_OPTIONS, topK: "99999999999" })).toEqual({
      field: "topK",
      message: "topK must be at most 10,000, not 99999999999.",
    });
    expect(askProblem("Who?", { ...NO_OPTIONS, chunkTopK: "10001" })?.field).toBe("chunkTopK");
    expect(askProblem("Who?", { ...NO_OPTIONS, totalTokens: "2000001" })?.field).toBe("totalTokens");
    expect(askProblem("Who?", { topK: "10000", chunkTopK: "10000", totalTokens: "2000000" })).toBeUndefined();
  });

  it("lets a question with options left empty or in range be asked", () => {
    expect(askProblem("Who?", NO_OPTIONS)).toBeUndefined();
    expect(askProblem("Who?", { topK: "1", chunkTopK: " 20 ", totalTokens: "256" })).toBeUndefined();
  });
});
