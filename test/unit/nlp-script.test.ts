import { describe, expect, it } from "vitest";
import { analyzeText } from "../../src/nlp/analyze.js";
import { detectScript, scriptRuns } from "../../src/nlp/script.js";

describe("detectScript", () => {
  it("tells English, Chinese and mixed text apart", () => {
    expect(detectScript("Christopher Nolan directed Inception.")).toBe("en");
    expect(detectScript("马云在杭州创立了阿里巴巴。")).toBe("zh");
    expect(detectScript("OpenAI 于 2023 年发布了 GPT-4 模型，微软是其主要投资者。")).toBe("zh");
    expect(
      detectScript("Wangliang (魍魎) is the name of a malevolent spirit in Chinese mythology and folklore."),
    ).toBe("en");
    expect(
      detectScript("Inception was directed by Christopher Nolan. 诺兰出生于伦敦，是一位著名导演。"),
    ).toBe("mixed");
  });
});

describe("scriptRuns and analyzeText", () => {
  it("cuts mixed text into runs of one script covering the whole text", () => {
    const text = "Inception was directed by Christopher Nolan. 诺兰出生于伦敦。He lives in Los Angeles.";
    const runs = scriptRuns(text);
    expect(runs.map((r) => r.script)).toEqual(["en", "zh", "en"]);
    expect(runs[0]?.start).toBe(0);
    expect(runs.at(-1)?.end).toBe(text.length);
  });

  it("maps every mention of mixed text back to its place in the whole text", () => {
    const text = "Inception was directed by Christopher Nolan. 诺兰出生于伦敦。He lives in Los Angeles.";
    const analysis = analyzeText(text);
    for (const m of analysis.mentions) {
      expect(text.slice(m.start, m.end).toLowerCase()).toContain(m.name.toLowerCase().split(" ")[0]);
      expect(analysis.sentences[m.sentence]!.start).toBeLessThanOrEqual(m.start);
    }
    expect(analysis.mentions.map((m) => m.name)).toEqual(
      expect.arrayContaining(["Christopher Nolan", "伦敦", "Los Angeles"]),
    );
  });
});
