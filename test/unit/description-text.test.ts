import { describe, expect, it } from "vitest";
import { descriptionFragments, readableDescription } from "../../src/merge/description-text.js";

describe("readableDescription", () => {
  it("puts each fragment on a line of its own, whatever spacing the fragments had", () => {
    expect(readableDescription("Ada founded Lumora.<SEP>  She lives in\nVessen. ")).toBe(
      "Ada founded Lumora.\nShe lives in Vessen.",
    );
    expect(readableDescription("<SEP>Only one.<SEP> ")).toBe("Only one.");
  });

  it("returns a description that needs no reading as it is, the same as splitting it would", () => {
    const cases = [
      "A summarised description, one line.",
      "Tabs\tand\nbreaks",
      "double  space",
      " leading",
      "trailing ",
      "",
      "澄州是一座城市。<SEP>青岚科技总部在澄州。",
    ];
    for (const text of cases) expect(readableDescription(text)).toBe(descriptionFragments(text).join("\n"));
  });
});
