import { describe, expect, it } from "vitest";
import { foldToken, queryTerms } from "../../src/storage/text/query-terms.js";

describe("query terms", () => {
  it("counts a word once whatever its case or accents, as the full-text index does", () => {
    expect(queryTerms("The cat met the Cat near a café, THE cafe")).toEqual([
      "The",
      "cat",
      "met",
      "near",
      "a",
      "café",
    ]);
    expect(foldToken("Café")).toBe("cafe");
  });

  it("keeps Chinese words as terms and runs of single characters as one phrase", () => {
    const terms = queryTerms("苏轼 wrote 腾讯");
    expect(terms).toContain("wrote");
    expect(terms.some((term) => term.includes("苏") || term.includes("轼"))).toBe(true);
    expect(new Set(terms).size).toBe(terms.length);
  });
});
