import { describe, expect, it } from "vitest";
import { affordableTerms } from "../../src/storage/text/term-budget.js";

const ROWS: Record<string, number> = {
  the: 9000,
  in: 7000,
  film: 2500,
  directed: 900,
  leland: 12,
  carolina: 40,
};
const rowsWith = (term: string) => ROWS[term] ?? 0;

describe("affordableTerms (relationship full-text query under a postings budget)", () => {
  it("keeps the rarest terms that fit, in their query order, and leaves the commonest out", () => {
    const terms = ["the", "film", "directed", "in", "leland", "carolina"];
    expect(affordableTerms(terms, rowsWith, 5000)).toEqual(["film", "directed", "leland", "carolina"]);
    expect(affordableTerms(terms, rowsWith, 1000)).toEqual(["directed", "leland", "carolina"]);
  });

  it("keeps every term when all fit", () => {
    expect(affordableTerms(["film", "leland"], rowsWith, 1_000_000)).toEqual(["film", "leland"]);
  });

  it("always keeps the rarest term, so a query of common words still matches", () => {
    expect(affordableTerms(["the", "in"], rowsWith, 10)).toEqual(["in"]);
    expect(affordableTerms([], rowsWith, 10)).toEqual([]);
  });

  it("treats terms the index lacks as free, and still keeps the rarest term that matches", () => {
    expect(affordableTerms(["the", "unheard"], rowsWith, 100)).toEqual(["the", "unheard"]);
    // A misspelt rare word matches nothing: the common words after it still find passages.
    expect(affordableTerms(["the", "frnace", "in"], rowsWith, 100)).toEqual(["frnace", "in"]);
  });
});
