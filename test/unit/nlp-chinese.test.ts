import { describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { analyzeText } from "../../src/nlp/analyze.js";
import { analyzeChinese, chineseSentences } from "../../src/nlp/chinese.js";

describe("chineseSentences", () => {
  it("splits on 。！？； and line breaks, with offsets", () => {
    const text = "第一句。第二句！\n第三句；第四句？";
    const sentences = chineseSentences(text);
    expect(sentences.map((s) => s.text)).toEqual(["第一句。", "第二句！", "第三句；", "第四句？"]);
    for (const s of sentences) expect(text.slice(s.start, s.end)).toBe(s.text);
  });
});

describe("analyzeChinese", () => {
  it("classes people, places and organisations from jieba's tags", () => {
    const { mentions } = analyzeChinese("周杰伦出生于台湾省新北市。清华大学位于北京市海淀区。");
    const kinds = Object.fromEntries(mentions.filter((m) => m.named).map((m) => [m.name, m.kind]));
    expect(kinds).toMatchObject({
      周杰伦: "person",
      台湾省: "location",
      新北市: "location",
      清华大学: "organization",
    });
  });

  it("types a name by its place or organisation ending, over jieba's person tag", () => {
    const kindOf = (text: string, name: string) =>
      analyzeChinese(text).mentions.find((m) => m.name === name)?.kind;
    // jieba tags 高新区 a person's name (nr); its ending 区 ends no given name.
    expect(kindOf("公司总部位于高新区。", "高新区")).toBe("location");
    expect(kindOf("听潮芯片的生产线设在澄州高新区。澄州高新区很大。", "澄州高新区")).toBe("location");
  });

  it("keeps a person's name whose given name ends with a place character", () => {
    const kindOf = (text: string, name: string) =>
      analyzeChinese(text).mentions.find((m) => m.name === name)?.kind;
    expect(kindOf("孙中山是革命家。", "孙中山")).toBe("person");
    expect(kindOf("王小山是工程师。", "王小山")).toBe("person");
    // Words jieba does not know (tag x): a surname and a given name ending in 江 or 湖.
    expect(kindOf("李江说。", "李江")).toBe("person");
    expect(kindOf("张海湖是作家。", "张海湖")).toBe("person");
  });

  it("ends a job title jieba's dictionary lacks before the name after it", () => {
    const { mentions } = analyzeChinese("首席财务官王芳说。");
    // Without the title in jieba's dictionary: 首席 / 财务 / 官王芳.
    expect(mentions.find((m) => m.name === "王芳")?.kind).toBe("person");
    expect(mentions.some((m) => m.name.includes("官王"))).toBe(false);
  });

  it("ends a speaker's name before the speech verb after it", () => {
    const person = (text: string) =>
      analyzeChinese(text)
        .mentions.filter((m) => m.kind === "person")
        .map((m) => m.name);
    // jieba: 首席财务官 / 李 / 明说 (明说 is a word of its dictionary).
    expect(person("首席财务官李明说，公司业绩很好。")).toEqual(["李明"]);
    // jieba keeps the verb in a name it does not know: 李明称.
    expect(person("李明称公司很好。")).toEqual(["李明"]);
    expect(person("首席技术官张华强调安全。")).toEqual(["张华"]);
    // 明说 with no surname before it is the verb it is.
    expect(person("他明说了不来。")).toEqual([]);
    expect(person("王小明说他来了。")).toEqual(["王小明"]);
  });

  it("recovers names jieba's unknown-word model glued to a preposition", () => {
    const { mentions } = analyzeChinese("该公司由马云等人于1999年创立。");
    expect(mentions.find((m) => m.name === "马云")?.kind).toBe("person");
    expect(mentions.map((m) => m.name)).not.toContain("由马云");
  });

  it("keeps a surname with the given name jieba read apart from it", () => {
    const named = (text: string) =>
      analyzeChinese(text)
        .mentions.filter((m) => m.named)
        .map((m) => `${m.name}:${m.kind}`);
    // jieba: 由周 (its HMM glued the surname to the preposition) / 文澜 (nrfg).
    expect(named("江宁船厂由周文澜于1958年创立。")).toContain("周文澜:person");
    // jieba: 周 (nr) / 文澜 (nrfg).
    expect(named("周文澜与王芳是同事。")).toEqual(["周文澜:person", "王芳:person"]);
    // jieba: 陈 (nr) / 光标 (n, a cursor): a given name that is also a noun.
    expect(named("陈光标向灾区捐款。")).toEqual(["陈光标:person"]);
    const text = "江宁船厂由周文澜于1958年创立。";
    for (const m of analyzeChinese(text).mentions) expect(text.slice(m.start, m.end)).toBe(m.name);
  });

  it("keeps an organisation named after a place whole: the place and a noun ending in 厂, 大学...", () => {
    const named = (text: string) =>
      analyzeChinese(text)
        .mentions.filter((m) => m.named)
        .map((m) => `${m.name}:${m.kind}`);
    // jieba: 江宁 (ns) / 船厂 (n), 南京 (ns) / 化工厂 (n).
    expect(named("江宁船厂由周文澜于1958年创立。")).toEqual(["江宁船厂:organization", "周文澜:person"]);
    expect(named("南京化工厂在江边。")).toContain("南京化工厂:organization");
    expect(named("南京化工厂在江边。")).not.toContain("南京:location");
    // Everyday nouns ending in 部 or 队 after a place are no organisation's: 上海 / 总部, 北京 / 团队.
    expect(named("公司上海总部很大。")).toContain("上海:location");
    expect(named("北京团队很强。")).toContain("北京:location");
  });

  it("joins a transliterated name split at its middle dot", () => {
    const { mentions } = analyzeChinese("苹果公司由史蒂夫·乔布斯创立。");
    expect(mentions.map((m) => m.name)).toContain("史蒂夫·乔布斯");
  });

  it("keeps offsets that point at the mention", () => {
    const text = "马云在杭州创立了阿里巴巴。";
    for (const m of analyzeChinese(text).mentions) expect(text.slice(m.start, m.end)).toBe(m.name);
  });

  it("makes noun runs and salient TF-IDF keywords into concepts, but not parts of names", () => {
    const analysis = analyzeChinese("阿里巴巴集团是一家总部位于杭州的跨国科技公司。");
    const concepts = analysis.mentions.filter((m) => !m.named).map((m) => m.name);
    expect(concepts).toContain("跨国科技公司");
    expect(analysis.salient).toContain("科技");
    expect(concepts).toContain("科技");
    expect(concepts).not.toContain("集团");
    expect(concepts).not.toContain("公司");
  });

  it("leaves a generic noun that ends a noun run out of the concept", () => {
    const text = "浙江大学的李华教授介绍了联合实验室在中文分词方面的成果。";
    const analysis = analyzeChinese(text);
    const concepts = analysis.mentions.filter((m) => !m.named);
    expect(concepts.map((m) => m.name)).toContain("中文分词");
    expect(concepts.map((m) => m.name)).not.toContain("中文分词方面");
    for (const m of concepts) expect(text.slice(m.start, m.end)).toBe(m.name);
  });
});

describe("Chinese organisation and product names jieba does not know", () => {
  const extractor = new OfflineNlpExtractor();
  const names = (text: string, title: string) =>
    extractor.extractText(text, title).entities.map((e) => e.name);

  it("are kept whole when they come back in the passage", () => {
    const text = "星河动力成立于2018年，总部位于北京。周雨桐是星河动力的创始人，她带领星河动力发射了火箭。";
    const found = names(text, "zh.txt");
    expect(found).toContain("星河动力");
    expect(found).toContain("周雨桐");
    expect(found).not.toContain("星河");
    expect(found).not.toContain("动力");
  });

  it("are kept whole when the document's title names them, even said once", () => {
    const found = names("星河动力成立于2018年，总部位于北京。", "星河动力公司简介");
    expect(found).toContain("星河动力");
    expect(found).not.toContain("动力");
    // Without the title, one mention is not enough to tell a name from two words.
    expect(analyzeText("星河动力成立于2018年。", ["星河动力"]).mentions.map((m) => m.name)).toContain(
      "星河动力",
    );
  });

  it("keep a coined word and the trade word after it as one company, even said once", () => {
    const entities = extractor.extractText(
      "青岚科技由林晓创立于杭州。墨川生物在苏州建了新工厂。",
      "zh.txt",
    ).entities;
    const found = entities.map((e) => e.name);
    expect(found).toEqual(expect.arrayContaining(["青岚科技", "墨川生物", "林晓", "杭州", "苏州"]));
    for (const part of ["青岚", "科技", "墨川", "生物"]) expect(found).not.toContain(part);
    expect(entities.find((e) => e.name === "青岚科技")?.type).toBe("organization");
    // A verb jieba glued to its aspect mark ("建了") is no coined name.
    expect(names("他们建了机器人工厂。", "zh.txt").some((name) => name.startsWith("建了"))).toBe(false);
  });

  it("leave dictionary words and runs said once as jieba cut them", () => {
    const found = names("公司在北京设立了研发中心。", "zh.txt");
    expect(found).toContain("北京");
    expect(found.some((name) => name.includes("北京设立"))).toBe(false);
  });
});

describe("Latin names in Chinese sentences", () => {
  const named = (text: string) =>
    analyzeText(text)
      .mentions.filter((m) => m.named)
      .map((m) => m.name);

  it("are whole across their spaces, as jieba leaves each word apart", () => {
    expect(named("2023年，青岚科技与比利时的Quayside Analytics签署合作协议。")).toContain(
      "Quayside Analytics",
    );
    expect(named("他在New York工作。")).toEqual(["New York"]);
  });

  it("never take Chinese characters in: a sentence mostly Chinese is read as Chinese", () => {
    const names = named("公司使用Microsoft Azure OpenAI服务和GPT 4模型。");
    expect(names).toEqual(["Microsoft Azure OpenAI", "GPT 4"]);
    // An English sentence glossing a name in characters stays English.
    expect(named("Qinglan Technology (青岚科技) was founded in Hangzhou.")).toContain("Qinglan Technology");
  });
});
