import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { analyzeText } from "../../src/nlp/analyze.js";
import type { CandidatePair } from "../../src/resolve/candidates.js";

/** A company news item: names, and the titles, departments and activities around them. */
const NEWS = [
  "星河动力发布第三季度财报",
  "星河动力公司今天在北京发布了第三季度财报。公司首席执行官王建国表示，市场销售部门本季度的收入增长了百分之二十。",
  "首席财务官李明说，公司将继续扩大在上海和深圳的市场销售网络。王建国还透露，星河动力正与清华大学合作研发新一代火箭发动机。",
  "据悉，市场销售团队将在明年扩招一百人。首席技术官张伟负责研发工作，他曾在中国航天科技集团工作十年。",
  "星河动力的竞争对手蓝箭航天也在加大市场推广力度。分析师认为，首席执行官的战略调整将提升公司的市场份额。",
].join("\n");
const HEADLINE = "星河动力发布第三季度财报";

const extractor = new OfflineNlpExtractor();
const namesOf = (text: string, title: string) =>
  extractor.extractText(text, title).entities.map((e) => e.name);

describe("offline Chinese entities", () => {
  it("are the names: people, organisations, places and coined names", () => {
    const names = namesOf(NEWS, HEADLINE);
    expect(names).toEqual(
      expect.arrayContaining([
        "星河动力",
        "星河动力公司",
        "王建国",
        "张伟",
        "北京",
        "上海",
        "深圳",
        "清华大学",
        "中国航天科技集团",
        "蓝箭航天",
      ]),
    );
  });

  it("name a speaker after a title whole, without the speech verb", () => {
    // jieba reads 首席财务官李明说 as 首席财务官 / 李 / 明说.
    const names = namesOf(NEWS, HEADLINE);
    expect(names).toContain("李明");
    for (const part of ["李", "明说", "李明说"]) expect(names, part).not.toContain(part);
  });

  it("are never bare titles, generic activities or other common nouns", () => {
    const names = namesOf(NEWS, HEADLINE);
    const common = ["首席", "执行官", "首席执行官", "首席技术官", "市场", "销售", "市场销售"];
    common.push("市场销售部门", "市场销售团队", "公司", "分析师", "市场份额", "本季度", "竞争对手");
    for (const noun of common) expect(names, noun).not.toContain(noun);
  });

  it("leave a title said twice unjoined, but keep a coined name said twice whole", () => {
    const text = "首席执行官王建国来到杭州。首席执行官说，星河动力会在杭州建厂。星河动力很有名。";
    const named = analyzeText(text)
      .mentions.filter((m) => m.named)
      .map((m) => m.name);
    expect(named).toContain("星河动力");
    expect(named).not.toContain("首席执行官");
  });

  it("include works set between 《》, and not the names inside their titles", () => {
    const names = namesOf("王建国读了《三体》，还看了电影《流浪地球》和《北京人在纽约》。", "zh.txt");
    expect(names).toEqual(expect.arrayContaining(["王建国", "三体", "流浪地球", "北京人在纽约"]));
    expect(names).not.toContain("北京");
    expect(names).not.toContain("纽约");
    expect(names).not.toContain("他读");
  });

  it("take no entity from a headline the text never names as a thing", () => {
    const names = namesOf(NEWS, HEADLINE);
    expect(names).not.toContain(HEADLINE);
    // A title that is the subject's name, said in the text, still is one.
    expect(namesOf("星河动力成立于2018年，总部位于北京。", "星河动力公司简介")[0]).toBe("星河动力");
  });
});

describe("duplicates proposed among offline Chinese entities", () => {
  let dir: string;
  let kgrag: Kgrag;
  let pairs: CandidatePair[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kgrag-zh-duplicates-"));
    kgrag = await createKgrag({ env: {}, config: { workspace: dir, community: { enabled: false } } });
    await kgrag.index([{ id: "news", title: HEADLINE, text: NEWS }]);
    pairs = await kgrag.entities.duplicates();
  }, 60_000);

  afterAll(async () => {
    await kgrag.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("are real name variants: a company's short and full name", () => {
    const named = pairs.map((p) => [...p.names].sort().join(" / "));
    expect(named).toContain("星河动力 / 星河动力公司");
    const variant = pairs.find((p) => p.names.includes("星河动力公司"));
    expect(variant?.decision).not.toBe("apart");
  });

  it("never pair common nouns, however alike their sentences", () => {
    const proposed = pairs.filter((p) => p.decision !== "apart").map((p) => [...p.names].sort().join(" / "));
    expect(proposed).toEqual(["星河动力 / 星河动力公司"]);
  });
});
