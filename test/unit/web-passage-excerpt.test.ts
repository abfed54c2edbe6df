import { describe, expect, it } from "vitest";
import { excerptAroundMark, highlightPieces } from "../../web/src/components/highlight.js";

/** The marked words of an excerpt, and its first characters. */
function read(text: string, highlight: Parameters<typeof excerptAroundMark>[1]) {
  const excerpt = excerptAroundMark(text, highlight);
  const pieces = highlightPieces(excerpt.text, excerpt.highlight);
  return {
    text: excerpt.text,
    marked: pieces.filter((piece) => piece.marked).map((piece) => piece.text),
    before: excerpt.text.slice(0, excerpt.text.indexOf(pieces.find((p) => p.marked)?.text ?? "")),
  };
}

describe("a passage preview from just before its first mention", () => {
  const passage =
    "Askia Muhammad I (1443-1538), born Muhammad ibn Abi Bakr al-Turi or Muhammad Ture, was the " +
    "first ruler of the Askia dynasty of the Songhai Empire. He expanded trade across West Africa " +
    "and built schools, and in his time the empire reached its largest extent in Asia and Africa.";

  it("starts a few words before a mention deep in the passage, after a word break, marked at the same words", () => {
    const at = passage.indexOf("Asia");
    const { text, marked, before } = read(passage, { ranges: [{ start: at, end: at + 4 }] });
    expect(text.startsWith("…")).toBe(true);
    expect(marked).toEqual(["Asia"]);
    // Some context, cut at a word's start, never the whole passage before.
    expect(before.length).toBeGreaterThan(20);
    expect(before.length).toBeLessThanOrEqual(61);
    expect(passage).toContain(before.slice(1));
    expect(passage.charAt(passage.indexOf(before.slice(1)) - 1)).toBe(" ");
    expect(text.endsWith("Asia and Africa.")).toBe(true);
  });

  it("keeps every later mark, shifted with the text", () => {
    const ranges = [...passage.matchAll(/Africa/g)].map((m) => ({ start: m.index, end: m.index + 6 }));
    const { marked } = read(passage, { ranges });
    expect(marked).toEqual(["Africa", "Africa"]);
  });

  it("marks terms (no mention ranges) the same way", () => {
    const { text, marked } = read(passage, { terms: ["songhai"] });
    expect(text.startsWith("…")).toBe(true);
    expect(marked).toEqual(["Songhai"]);
  });

  it("cuts a Chinese passage after a punctuation mark", () => {
    const zh =
      "青岚科技是一家总部位于澄州的芯片设计公司，公司专注于低功耗语音识别芯片，员工约三百人。" +
      "青岚科技最重要的产品是听潮芯片，这款芯片于2020年发布，可以在没有网络的情况下识别中文和英文语音指令。" +
      "回国后，林晓舟在澄州创办了青岚科技。";
    const at = zh.indexOf("林晓舟");
    const { text, marked, before } = read(zh, { ranges: [{ start: at, end: at + 3 }] });
    expect(marked).toEqual(["林晓舟"]);
    expect(text.startsWith("…")).toBe(true);
    expect("，。".includes(zh.charAt(zh.indexOf(before.slice(1)) - 1))).toBe(true);
  });

  it("leaves a passage whose mention is near its start whole", () => {
    const excerpt = excerptAroundMark(passage, { terms: ["Muhammad"] });
    expect(excerpt.text).toBe(passage);
  });
});
