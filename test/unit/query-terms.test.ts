import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  foldToken,
  queryTerms,
  segmentForIndex,
  unicode61Token,
} from "../../src/storage/text/query-terms.js";

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

  it("takes a question of hundreds of thousands of words (the first 64 distinct ones)", () => {
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i % 500}`).join(" ");
    const terms = queryTerms(`${words} 苏轼 ${words}`);
    expect(terms).toHaveLength(64);
    expect(terms.slice(0, 2)).toEqual(["w0", "w1"]);
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

describe("text as the full-text index stores it", () => {
  const fresh = (text: string) =>
    text.replace(
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu,
      (run) =>
        ` ${[...new Intl.Segmenter("zh", { granularity: "word" }).segment(run)]
          .filter((part) => part.isWordLike)
          .map((part) => part.segment)
          .join(" ")} `,
    );

  it("cuts CJK runs into words and leaves other text as written", () => {
    expect(segmentForIndex("Plain English, untouched.")).toBe("Plain English, untouched.");
    const text = "苏轼在黄州写了《念奴娇》。Su Shi wrote it.";
    const cut = segmentForIndex(text);
    expect(cut).toBe(fresh(text));
    expect(cut.startsWith(" 苏轼 在 ")).toBe(true);
    expect(cut.endsWith("。Su Shi wrote it.")).toBe(true);
  });

  it("gives every text the segmenter's own cut, the same sentence in many texts included", () => {
    const sentences = Array.from({ length: 300 }, (_, i) => `词人${i}在杭州西湖边写下了第${i}首词。`);
    // Each sentence in several texts, as relationships found in one sentence are described by it.
    const texts = sentences.flatMap((s, i) => [s, `${s} and ${sentences[(i * 7) % 300]}`, `关系：${s}`]);
    for (const text of [...texts, ...texts.reverse()]) expect(segmentForIndex(text)).toBe(fresh(text));
  });
});

describe("Chinese question terms", () => {
  it("keeps a name the dictionary lacks apart from the question characters after it", () => {
    // ICU cuts 林晓峰是谁 into single characters; as one phrase "林 晓 峰 是 谁" no passage matched.
    expect(queryTerms("林晓峰是谁？")).toEqual(["林 晓 峰", "是", "谁"]);
    expect(queryTerms("谁是林晓峰？")).toContain("林 晓 峰");
  });

  it("finds the passage naming the person a question asks about", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')");
    db.prepare("INSERT INTO t VALUES (?)").run(segmentForIndex("青岚科技由林晓峰和陈雨桐于2016年创立。"));
    const match = queryTerms("林晓峰是谁？")
      .map((term) => `"${term}"`)
      .join(" OR ");
    expect(db.prepare("SELECT count(*) FROM t WHERE t MATCH ?").pluck().get(match)).toBe(1);
    db.close();
  });
});
