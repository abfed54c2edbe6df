import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { foldToken, queryTerms, unicode61Token } from "../../src/storage/text/query-terms.js";

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

  it("keeps words apart that unicode61 keeps apart: marks outside Latin letters count", () => {
    expect(queryTerms("ガラス と カラス")).toEqual(["ガラス", "と", "カラス"]);
    expect(queryTerms("ёж еж Άλφα αλφα İstanbul istanbul")).toEqual(["ёж", "еж", "Άλφα", "αλφα", "İstanbul"]);
  });

  it("folds words exactly as SQLite's unicode61 tokenizer (remove_diacritics 2) indexes them", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')");
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
    const words = [
      "Café",
      "CAFÉ",
      "ёж",
      "Ёж",
      "ガラス",
      "Άλφα",
      "ΆΛΦΑ",
      "naïve",
      "Ångström",
      "İstanbul",
      "Øre",
      "Straße",
    ];
    for (const word of words) db.prepare("INSERT INTO t VALUES (?)").run(word);
    const indexed = db.prepare("SELECT term FROM v").pluck().all() as string[];
    expect([...new Set(words.map(unicode61Token))].sort()).toEqual([...indexed].sort());
    db.close();
  });

  it("keeps Chinese words as terms and runs of single characters as one phrase", () => {
    const terms = queryTerms("苏轼 wrote 腾讯");
    expect(terms).toContain("wrote");
    expect(terms.some((term) => term.includes("苏") || term.includes("轼"))).toBe(true);
    expect(new Set(terms).size).toBe(terms.length);
  });
});
