import { describe, expect, it } from "vitest";
import { askProblem } from "../../web/src/views/ask-problems.js";

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

  it("lets a question with options left empty or in range be asked", () => {
    expect(askProblem("Who?", NO_OPTIONS)).toBeUndefined();
    expect(askProblem("Who?", { topK: "1", chunkTopK: " 20 ", totalTokens: "256" })).toBeUndefined();
  });
});
