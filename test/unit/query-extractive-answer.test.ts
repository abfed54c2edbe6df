import { describe, expect, it } from "vitest";
import { splitSentences } from "../../src/nlp/sentence-split.js";
import {
  EXTRACTIVE_LABEL,
  extractiveAnswer,
  NO_MATCHING_SENTENCE,
} from "../../src/query/answer/extractive-answer.js";
import type { ContextChunk, Reference } from "../../src/query/result.js";

function context(texts: string[]): { chunks: ContextChunk[]; references: Reference[] } {
  const chunks = texts.map((text, i) => ({ id: `c${i}`, docId: `d${i}`, text, score: 1 }));
  const references = chunks.map((c, i) => ({
    n: i + 1,
    docId: c.docId,
    title: c.docId,
    chunkId: c.id,
    start: 0,
    end: c.text.length,
  }));
  return { chunks, references };
}

/** Passages cut from one document titled `title`, the i-th starting at character `starts[i]`. */
function documentPassages(title: string, texts: string[], starts: number[]) {
  const chunks = texts.map((text, i) => ({ id: `c${i}`, docId: "d", text, score: 1 }));
  const references = chunks.map((c, i) => ({
    n: i + 1,
    docId: "d",
    title,
    chunkId: c.id,
    start: starts[i] ?? 0,
    end: (starts[i] ?? 0) + c.text.length,
  }));
  return { chunks, references };
}

describe("extractive answer", () => {
  it("quotes the best-matching sentences with the number of their passage, labelled", () => {
    const { chunks, references } = context([
      "The weather was mild. Lyon hosts many festivals.",
      "Big Stone Gap is a 2014 film. It was directed by Adriana Trigiani.",
    ]);
    const answer = extractiveAnswer("Who directed the film Big Stone Gap?", chunks, references);
    const lines = answer.split("\n");
    expect(lines[0]).toBe(EXTRACTIVE_LABEL);
    expect(lines[1]).toBe("Big Stone Gap is a 2014 film. [2]");
    expect(answer).toContain("It was directed by Adriana Trigiani. [2]");
    expect(answer).not.toContain("weather");
  });

  it("leaves out a passage's opening that ends a sentence begun before it, and quotes a sentence once", () => {
    const whole = "Ada Okafor came to Rotterdam to discuss project 137 with Sofia Bakker.";
    const texts = [
      `The harbour was busy that spring. ${whole}`,
      `to discuss project 137 with Sofia Bakker. Project 137 was approved in June.`,
      `${whole} The weather was mild.`,
    ];
    // The second and third passages are cut from inside the document.
    const { chunks, references } = documentPassages("Harbour notes", texts, [0, 40, 80]);
    const answer = extractiveAnswer("Who discussed project 137 with Sofia Bakker?", chunks, references);
    expect(answer).not.toMatch(/^to discuss/m);
    expect(answer.split(whole)).toHaveLength(2);
    expect(answer).toContain(`${whole} [1]`);
    // Inside a document, an opening with a digit or a brand in mixed case is a sentence of its own.
    const inside = (text: string) => documentPassages("Lumen", [text], [500]);
    const revenue = inside("2024 revenue at Lumen rose 12% to 4 million euros. The office moved to Delft.");
    expect(
      extractiveAnswer("How much did Lumen revenue rise in 2024?", revenue.chunks, revenue.references),
    ).toContain("2024 revenue at Lumen rose 12% to 4 million euros. [1]");
    const shop = inside("eBay bought the Lumen shop in 2019. The office moved to Delft.");
    expect(extractiveAnswer("Who bought the Lumen shop?", shop.chunks, shop.references)).toContain(
      "eBay bought the Lumen shop in 2019. [1]",
    );
    // A passage that starts its document keeps a lower-case opening: nothing comes before it.
    const first = context(["iPhone sales in Rotterdam doubled in 2020."]);
    expect(
      extractiveAnswer("How did iPhone sales in Rotterdam change?", first.chunks, first.references),
    ).toContain("iPhone sales in Rotterdam doubled in 2020. [1]");
  });

  it("resolves a pronoun from the sentence before it even when that sentence was quoted from another passage", () => {
    const { chunks, references } = documentPassages(
      "notes.md",
      [
        "The harbour opened in 1990. Idris Vale founded Tidewell.",
        "Idris Vale founded Tidewell. He was born in Saltmere. The port grew.",
      ],
      [0, 30],
    );
    const answer = extractiveAnswer("Where was Idris Vale born?", chunks, references);
    expect(answer.split("\n")[1]).toBe("He was born in Saltmere. [2]");
  });

  it("weights rare question terms above common ones", () => {
    const { chunks, references } = context([
      "The river is long. The river is wide. The river Rhône flows through Lyon.",
    ]);
    const answer = extractiveAnswer("Which river flows through Lyon?", chunks, references);
    expect(answer.split("\n")[1]).toBe("The river Rhône flows through Lyon. [1]");
  });

  it("matches Chinese questions by word", () => {
    const { chunks, references } = context(["上海是一个城市。北京是中国的首都。"]);
    const answer = extractiveAnswer("中国的首都是哪里？", chunks, references);
    expect(answer.split("\n")[1]).toBe("北京是中国的首都。 [1]");
  });

  it("quotes passages in the question's language, keeping their numbers", () => {
    const { chunks, references } = context([
      "Corvane Shipping由托马斯·阿克赖特于一九八七年在澄州创立，总部位于白湾镇的港口。",
      "The weather was mild.",
      "Corvane Shipping was founded in 1987 by Tomas Arkwright.",
    ]);
    const answer = extractiveAnswer("Who founded Corvane Shipping?", chunks, references);
    expect(answer.split("\n")[1]).toBe("Corvane Shipping was founded in 1987 by Tomas Arkwright. [3]");
    expect(answer).not.toContain("[1]");
  });

  it("quotes passages in another language when none is in the question's", () => {
    const { chunks, references } = context(["北京是中国的首都。"]);
    const answer = extractiveAnswer("What is the capital of China?", chunks, references);
    expect(answer.split("\n")[1]).toBe("北京是中国的首都。 [1]");
  });

  it("says no sentence matches rather than quote a passage the question has nothing in common with", () => {
    const { chunks, references } = context(["Alpha beta. Gamma delta."]);
    expect(extractiveAnswer("zzz?", chunks, references).split("\n")[1]).toBe(NO_MATCHING_SENTENCE);
    const utrecht = context(["Utrecht is a city in the Netherlands with a famous cathedral tower."]);
    expect(
      extractiveAnswer(
        "What is the airspeed velocity of an unladen swallow?",
        utrecht.chunks,
        utrecht.references,
      ),
    ).toBe(`${EXTRACTIVE_LABEL}\n${NO_MATCHING_SENTENCE}`);
  });
});

describe("extractive answer sentences", () => {
  it("never quotes a markdown heading", () => {
    const chunks = [
      { id: "c", docId: "d", text: "# Lumen Robotics\n\nLumen Robotics builds robots.", score: 1 },
    ];
    const refs = [{ n: 1, docId: "d", title: "d", chunkId: "c", start: 0, end: 10 }];
    expect(extractiveAnswer("What does Lumen Robotics build?", chunks, refs)).toBe(
      `${EXTRACTIVE_LABEL}\nLumen Robotics builds robots. [1]`,
    );
  });
});

describe("extractive answer without title lines", () => {
  it("never quotes a document's title line, which names a topic but states nothing", () => {
    const { chunks, references } = context([
      "Gullwing drone\n\nA fixed-wing survey aircraft that flies for ninety minutes on one charge.",
    ]);
    expect(extractiveAnswer("What is the Gullwing drone?", chunks, references)).toBe(
      `${EXTRACTIVE_LABEL}\nA fixed-wing survey aircraft that flies for ninety minutes on one charge. [1]`,
    );
  });

  it("never quotes the passage's own title line, subtitle and all", () => {
    const text =
      "Mara Quell: a profile\n\nMara Quell was born in 1978 in Port Ellery.\n\nShe founded Lumora Optics.";
    const { chunks, references } = documentPassages("Mara Quell: a profile", [text], [0]);
    const answer = extractiveAnswer("Who is Mara Quell?", chunks, references);
    expect(answer).toContain("Mara Quell was born in 1978 in Port Ellery. [1]");
    expect(answer).not.toContain("a profile");
  });

  it("quotes short fact lines: list items and key: value lines are not titles", () => {
    const { chunks, references } = context([
      "Vessen Dynamics\n\n- CEO: Maria Lopez\n- Founded: 1990",
      "青岚科技\n\n创始人：张伟",
    ]);
    expect(extractiveAnswer("Who is the CEO of Vessen Dynamics?", chunks, references).split("\n")[1]).toBe(
      "CEO: Maria Lopez [1]",
    );
    expect(extractiveAnswer("青岚科技的创始人是谁？", chunks, references)).toContain("创始人：张伟 [2]");
  });

  it("never quotes a title running straight into its text", () => {
    const { chunks, references } = context([
      "Gullwing drone\nThe Gullwing drone is a fixed-wing survey aircraft.",
    ]);
    expect(extractiveAnswer("What is the Gullwing drone?", chunks, references)).toBe(
      `${EXTRACTIVE_LABEL}\nThe Gullwing drone is a fixed-wing survey aircraft. [1]`,
    );
  });

  it("never quotes a title line in the middle of a passage", () => {
    const { chunks, references } = context(["上海是一个城市。\n\n澄州城市简介\n\n澄州是一座港口城市。"]);
    const answer = extractiveAnswer("澄州是什么城市？", chunks, references);
    expect(answer.split("\n")[1]).toBe("澄州是一座港口城市。 [1]");
    expect(answer).not.toContain("澄州城市简介");
  });

  it("falls back to the title line when a passage holds nothing else", () => {
    const { chunks, references } = context(["Gullwing drone"]);
    expect(extractiveAnswer("What is it like to fly a Gullwing?", chunks, references)).toBe(
      `${EXTRACTIVE_LABEL}\nGullwing drone [1]`,
    );
  });
});

describe("extractive answer on hard-wrapped text", () => {
  it("quotes the whole sentence, not the line it starts on", () => {
    const { chunks, references } = context([
      [
        "# Kettle Works",
        "",
        "Bram Oster, the chief engineer of Kettle Works, was born in",
        "Halden in 1962 and studied in Tromsø. After his degree he worked at",
        "Boeing for ten years.",
      ].join("\n"),
    ]);
    const answer = extractiveAnswer("Where was Bram Oster born?", chunks, references);
    expect(answer.split("\n")[1]).toBe(
      "Bram Oster, the chief engineer of Kettle Works, was born in Halden in 1962 and studied in Tromsø. [1]",
    );
    expect(answer).not.toContain("was born in [1]");
  });

  it("still ends a sentence at a blank line and at each list item", () => {
    expect(splitSentences("Kettle Works makes boilers\n\nBram Oster runs it")).toEqual([
      "Kettle Works makes boilers",
      "Bram Oster runs it",
    ]);
    expect(splitSentences("Products:\n- steam boilers for\n  ships\n- water heaters")).toEqual([
      "Products:",
      "- steam boilers for ships",
      "- water heaters",
    ]);
  });
});
