import { describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { analyzeText } from "../../src/nlp/analyze.js";
import { chineseSentences } from "../../src/nlp/chinese.js";
import { joinCjkLines, singleLine, softLineBreaks, unwrapLines } from "../../src/nlp/line-breaks.js";
import { splitSentences } from "../../src/nlp/sentence-split.js";
import type { TextAnalysis } from "../../src/nlp/types.js";

/** Lines hard-wrapped at 72 columns, as most .txt and .md files are. */
const OSTER = [
  "Bram Oster, the chief engineer of Kettle Works, was born in",
  "Halden in 1962 and studied mechanical engineering in Tromsø. After his",
  "degree he moved to Seattle and worked at Boeing for ten years, designing",
  "landing gear. The company was founded by Mr. Jon",
  "Vik in 1931.",
].join("\n");

const QINGLAN = [
  "青岚科技是一家总部位于澄州的芯片设计公司，由林晓舟于2012年创立。公司专注于低功耗语音",
  "识别芯片。这款芯片可以在没有网",
  "络的情况下识别语音指令。",
].join("\n");

const oneLine = (text: string) => text.replace(/\s+/g, " ");

function expectExactOffsets(text: string, analysis: TextAnalysis): void {
  for (const s of analysis.sentences) expect(text.slice(s.start, s.end)).toBe(s.text);
  for (const m of analysis.mentions.filter((m) => m.named)) {
    expect(oneLine(text.slice(m.start, m.end))).toBe(m.name);
  }
}

describe("hard-wrapped English", () => {
  it("gives one sentence per real sentence, with exact offsets into the text", () => {
    const analysis = analyzeText(OSTER);
    expect(analysis.sentences.map((s) => oneLine(s.text))).toEqual([
      "Bram Oster, the chief engineer of Kettle Works, was born in Halden in 1962 and studied mechanical engineering in Tromsø.",
      "After his degree he moved to Seattle and worked at Boeing for ten years, designing landing gear.",
      "The company was founded by Mr. Jon Vik in 1931.",
    ]);
    expectExactOffsets(OSTER, analysis);
    // A name wrapped across two lines is one name.
    expect(analysis.mentions.map((m) => m.name)).toContain("Jon Vik");
  });

  it("describes entities with whole sentences, each on one line", () => {
    const extraction = new OfflineNlpExtractor().extractText(OSTER, "");
    const boeing = extraction.entities.find((e) => e.name === "Boeing");
    expect(boeing?.description).toBe(
      "After his degree he moved to Seattle and worked at Boeing for ten years, designing landing gear.",
    );
    const halden = extraction.entities.find((e) => e.name === "Halden");
    expect(halden?.description.startsWith("Bram Oster, the chief engineer")).toBe(true);
  });

  it("still ends a sentence at a blank line, a title line and a markdown block", () => {
    const text = [
      "Kettle Works",
      "Kettle Works makes boilers in Halden",
      "",
      "Its founder was Jon Vik",
      "# History",
      "The works opened in",
      "1931 beside the river",
      "- Boilers for ships",
      "- Boilers for mills",
      "| Year | Event |",
    ].join("\n");
    const expected = [
      "Kettle Works",
      "Kettle Works makes boilers in Halden",
      "Its founder was Jon Vik",
      "# History",
      "The works opened in 1931 beside the river",
      "- Boilers for ships",
      "- Boilers for mills",
      "| Year | Event |",
    ];
    // The analyzer may leave a block's marker out of its sentence; the boundaries are what count.
    const unmarked = (line: string) => line.replace(/^[-#]\s*/, "");
    expect(analyzeText(text).sentences.map((s) => unmarked(oneLine(s.text)))).toEqual(expected.map(unmarked));
    expect(splitSentences(text)).toEqual(expected);
  });

  it("ends a sentence after a heading line that follows a finished sentence", () => {
    const text = [
      "Kettle Works makes steam boilers and water heaters at its works beside the",
      "river in Halden. It was founded in the last century.",
      "Products",
      "Boilers for ships are made in Halden, and boilers for mills are made by the",
      "same engineers in Tromsø.",
    ].join("\n");
    const boilers =
      "Boilers for ships are made in Halden, and boilers for mills are made by the same engineers in Tromsø.";
    const sentences = analyzeText(text).sentences.map((s) => oneLine(s.text));
    expect(sentences).toContain("Products");
    expect(sentences).toContain(boilers);
    expect(splitSentences(text)).toEqual([
      "Kettle Works makes steam boilers and water heaters at its works beside the river in Halden.",
      "It was founded in the last century.",
      "Products",
      boilers,
    ]);
    const names = analyzeText(text).mentions.map((m) => m.name);
    expect(names).not.toContain("Products Boilers");
    expect(names).toContain("Halden");
  });

  it("reads a short line after a full-width sentence end as wrapped text in narrow columns", () => {
    const text =
      "The boiler works at Halden were set up in\nthe spring of 1990 by the city council.\n" +
      "Its founder was\nJon Vik, an engineer who had built ship\nboilers in Bergen for twenty years.";
    expect(splitSentences(text)).toEqual([
      "The boiler works at Halden were set up in the spring of 1990 by the city council.",
      "Its founder was Jon Vik, an engineer who had built ship boilers in Bergen for twenty years.",
    ]);
    expect(
      splitSentences(
        "澄州是一座港口城市，位于清江入海口的北岸，\n历史上以造船业闻名全国，造船厂遍布沿江两岸。\n人口很多\n它位于海边。",
      ),
    ).toEqual([
      "澄州是一座港口城市，位于清江入海口的北岸，历史上以造船业闻名全国，造船厂遍布沿江两岸。",
      "人口很多它位于海边。",
    ]);
  });

  it("keeps headings apart in text written one paragraph per line", () => {
    const text =
      "Kettle Works makes boilers for ships and has done so for more than a century.\nHistory\n" +
      "The company grew fast after the war, when the navy ordered new boilers.\nProducts\nIt sells steel kettles.";
    expect(splitSentences(text)).toEqual([
      "Kettle Works makes boilers for ships and has done so for more than a century.",
      "History",
      "The company grew fast after the war, when the navy ordered new boilers.",
      "Products",
      "It sells steel kettles.",
    ]);
    expect(
      splitSentences("澄州建城于明代，是清江入海口最大的港口城市之一。\n经济\n造船业是支柱产业。"),
    ).toEqual(["澄州建城于明代，是清江入海口最大的港口城市之一。", "经济", "造船业是支柱产业。"]);
  });

  it("lets a short line run on when the next line plainly continues it", () => {
    expect(splitSentences("Bram Oster\nwas born in Halden.")).toEqual(["Bram Oster was born in Halden."]);
    expect(splitSentences("Kettle Works and\nBoeing build machines.")).toEqual([
      "Kettle Works and Boeing build machines.",
    ]);
  });
});

describe("unwrapLines", () => {
  it("turns only wrapping line breaks into spaces, keeping the length, and is idempotent", () => {
    const text = `${OSTER}\r\n\r\nKettle Works makes boilers.\r\nIt is old.\nDr.\nVik`;
    const reading = unwrapLines(text);
    expect(reading.length).toBe(text.length);
    expect(reading.split("\n")).toHaveLength(3);
    expect(unwrapLines(reading)).toBe(reading);
    expect(softLineBreaks(reading)).toEqual([]);
  });
});

describe("hard-wrapped Chinese", () => {
  it("joins a sentence wrapped across lines, with exact offsets", () => {
    const sentences = chineseSentences(QINGLAN);
    expect(sentences.map((s) => s.text.replace(/\n/g, ""))).toEqual([
      "青岚科技是一家总部位于澄州的芯片设计公司，由林晓舟于2012年创立。",
      "公司专注于低功耗语音识别芯片。",
      "这款芯片可以在没有网络的情况下识别语音指令。",
    ]);
    for (const s of sentences) expect(QINGLAN.slice(s.start, s.end)).toBe(s.text);
  });

  it("reads a word cut by the line break as one word, mapped back onto both lines", () => {
    const analysis = analyzeText(QINGLAN);
    expectExactOffsets(QINGLAN, analysis);
    const network = analysis.mentions.find((m) => m.name === "网络");
    expect(network && QINGLAN.slice(network.start, network.end)).toBe("网\n络");
  });

  it("quotes wrapped sentences without a space between Chinese characters", () => {
    expect(splitSentences(QINGLAN)[1]).toBe("公司专注于低功耗语音识别芯片。");
    // The wrapped sentence names the company, so that entity quotes it.
    const named = QINGLAN.replace("公司专注于", "青岚科技专注于");
    const extraction = new OfflineNlpExtractor().extractText(named, "青岚科技");
    for (const item of [...extraction.entities, ...extraction.relationships]) {
      expect(item.description).not.toMatch(/\p{Script=Han}\s+\p{Script=Han}/u);
    }
    expect(
      extraction.entities.some((e) => e.description.includes("青岚科技专注于低功耗语音识别芯片。")),
    ).toBe(true);
  });
});

describe("joinCjkLines", () => {
  it("joins only line breaks beside Chinese text, and leaves a text without line breaks as it is", () => {
    expect(joinCjkLines("北京大学\n位于北京")).toBe("北京大学位于北京");
    expect(joinCjkLines("（\nVessen")).toBe("（Vessen");
    expect(joinCjkLines("Paris is\nthe capital")).toBe("Paris is\nthe capital");
    for (const text of ["北京大学 位于北京", "Paris is the capital.", "", "  a\tb  ", "城市。 Lumora"]) {
      expect(joinCjkLines(text)).toBe(text);
    }
    expect(singleLine("  Paris \t is\n the  capital ")).toBe("Paris is the capital");
    expect(singleLine("北京大学\n 位于北京")).toBe("北京大学位于北京");
  });
});
