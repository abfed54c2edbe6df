import { describe, expect, it } from "vitest";
import { looksLikeMarkdown } from "../../src/nlp/markdown-detect.js";
import { analysisReading, markdownProse, proseForAnalysis } from "../../src/nlp/markdown-prose.js";

/** Markdown syntax that must never reach the NLP: markers, emphasis, link targets, pipes, fences. */
const SYNTAX = /^#|^\s*[-*+] |\*\*|__|`|\]\(|\||^>|https?:/m;

const lines = (markdown: string) => markdownProse(markdown).split(/\n+/);

describe("markdownProse", () => {
  it("keeps a heading on its own line, apart from the sentence after it", () => {
    expect(lines("# Idris Vale\nIdris Vale was born in Saltmere.")).toEqual([
      "Idris Vale",
      "Idris Vale was born in Saltmere.",
    ]);
    expect(lines("Early life\n----------\nHe built kites.")).toEqual(["Early life", "He built kites."]);
  });

  it("removes emphasis, code spans and link targets but keeps their words", () => {
    const prose = markdownProse(
      "The **Gullwing** is _made_ by [Tidewell Robotics](https://tidewell.example/about) and runs `tingchao-os`.",
    );
    expect(prose).toBe("The Gullwing is made by Tidewell Robotics and runs tingchao-os.");
  });

  it("puts every list item, nested ones too, on its own line", () => {
    const markdown =
      "Products:\n\n- **Gullwing** drone\n* Halcyon lens\n  - coated in Port Ellery\n1. Tingchao chip";
    expect(lines(markdown)).toEqual([
      "Products:",
      "Gullwing drone",
      "Halcyon lens",
      "coated in Port Ellery",
      "Tingchao chip",
    ]);
  });

  it("turns table rows into lines of cells without pipes, even without a header in the chunk", () => {
    const table = "| Company | City |\n| --- | --- |\n| Lumora Optics | Vessen |";
    expect(lines(table)).toEqual(["Company; City", "Lumora Optics; Vessen"]);
    expect(lines("| Tidewell Robotics | Carrow Bay |\n| Qinglan | Chengzhou |")).toEqual([
      "Tidewell Robotics; Carrow Bay",
      "Qinglan; Chengzhou",
    ]);
  });

  it("leaves out closed code blocks but keeps the lines of a fence the chunk cut open", () => {
    expect(lines("Install it:\n\n```bash\nnpm install kgrag\n```\n\nThen run it.")).toEqual([
      "Install it:",
      "Then run it.",
    ]);
    expect(lines("Closing the block above.\n```\nVale lives in Saltmere.")).toEqual([
      "Closing the block above.",
      "Vale lives in Saltmere.",
    ]);
  });

  it("joins the soft-wrapped lines of a paragraph into one, without spaces between Chinese characters", () => {
    expect(lines("Vale studied engineering\nin Carrow Bay.")).toEqual([
      "Vale studied engineering in Carrow Bay.",
    ]);
    expect(lines("## 青岚科技\n\n青岚科技是一家\n芯片设计公司。")).toEqual([
      "青岚科技",
      "青岚科技是一家芯片设计公司。",
    ]);
    // A hard break (two trailing spaces) still ends its line.
    expect(lines("Harbour Road 4  \nVessen")).toEqual(["Harbour Road 4", "Vessen"]);
  });

  it("keeps quotes and inline HTML as words only", () => {
    expect(lines("> Visitors voted the **Gullwing** best product.\n\n<p>Held in <b>Vessen</b>.</p>")).toEqual(
      ["Visitors voted the Gullwing best product.", "Held in Vessen."],
    );
    // Block HTML: a heading as written, a table's cells apart.
    const html =
      "<h2>Harbor notes</h2>\n<table><tr><th>Name</th><th>Year</th></tr><tr><td>Vessen</td><td>2009</td></tr></table>";
    expect(lines(html).map((line) => line.replace(/\s+/g, " "))).toEqual([
      "Harbor notes",
      "Name Year",
      "Vessen 2009",
    ]);
  });

  it("leaves no markdown syntax in a document using all of it", () => {
    const document = [
      "# Tidewell Robotics",
      "Tidewell Robotics builds **survey drones**; see [the site](https://tidewell.example).",
      "## Products",
      "- The _Gullwing_ drone",
      "- `Halcyon` lenses from ![logo](lumora.png) Lumora",
      "| Year | Event |",
      "|------|-------|",
      "| 2016 | Founded in Carrow Bay |",
      "> Built for the coast.",
      "```ts",
      "const drone = new Gullwing();",
      "```",
    ].join("\n");
    const prose = markdownProse(document);
    expect(prose).not.toMatch(SYNTAX);
    expect(prose).toContain("Founded in Carrow Bay");
    expect(prose).not.toContain("new Gullwing");
  });
});

describe("analysisReading", () => {
  it("lists the headings among the prose lines, as the lines spell them", () => {
    const reading = analysisReading(
      "# Quarterly *Report*\n\nRevenue grew.\n\n## 市场 展望\n\n- a list item\n",
    );
    expect(reading.prose.split(/\n+/)).toEqual([
      "Quarterly Report",
      "Revenue grew.",
      "市场 展望",
      "a list item",
    ]);
    expect(reading.headings).toEqual(["Quarterly Report", "市场 展望"]);
    expect(analysisReading("Quarterly Report\n\nRevenue grew.").headings).toEqual([]);
  });
});

describe("proseForAnalysis on text without markdown", () => {
  const plain = [
    "Marie Curie was a physicist. She was born in Warsaw, Poland.\n\nCurie won the Nobel Prize in 1903.",
    "Mara Quell: a profile\n\nMara Quell was born in 1978 in Port Ellery.\nShe founded Lumora Optics.",
    "马云在杭州创立了阿里巴巴。\n阿里巴巴集团是一家总部位于中国杭州的跨国科技公司。",
    "Inception was directed by Christopher Nolan. 诺兰出生于伦敦。",
    "The price rose 5 * 3 percent; see snake_case_names, C# code and issue #12 (a - b).",
    "1990. That year the plant moved.\n    An indented line stays as written.",
  ];

  it("returns it unchanged, so plain English and Chinese are analysed as before", () => {
    for (const text of plain) {
      expect(looksLikeMarkdown(text)).toBe(false);
      expect(proseForAnalysis(text)).toBe(text);
    }
  });

  it("recognises each kind of markdown syntax on its own", () => {
    const samples = [
      "# Title",
      "```\ncode\n```",
      "- item",
      "| a | b |",
      "See [docs](https://x.example).",
      "It is **bold**.",
      "It is *emphasised* here.",
      "Run `npm test`.",
    ];
    for (const sample of samples) expect(looksLikeMarkdown(sample), sample).toBe(true);
  });
});
