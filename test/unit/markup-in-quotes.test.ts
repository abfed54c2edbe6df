import { describe, expect, it } from "vitest";
import { ExtractiveReportWriter } from "../../src/community/extractive-report-writer.js";
import { GraphIndex } from "../../src/community/graph-index.js";
import { buildReportContext } from "../../src/community/report-context.js";
import { ExtractiveSummarizer } from "../../src/merge/extractive-summarizer.js";
import { quotableProse, stripMarkup } from "../../src/nlp/markdown-prose.js";
import { extractiveAnswer } from "../../src/query/answer/extractive-answer.js";
import { entity, relationship } from "../support/community-fake-store.js";

const MARKDOWN = [
  "# Lumen Robotics",
  "",
  "**Lumen Robotics** was founded by __Mara Okafor__ in Lisbon in 2015.",
  "",
  "| Name | Role | Since |",
  "| --- | :---: | ---: |",
  "| Mara Okafor | CEO | 2015 |",
  "| Tomas Weber | CTO | 2017 |",
].join("\n");

/** Markdown a reader should never see in a quote. */
const MARKUP = /\*\*|__|^#|\||---/m;

describe("markup in offline quotes", () => {
  it("quotable prose keeps the words, not the markup, headings or table header and separator rows", () => {
    const prose = quotableProse(MARKDOWN);
    expect(prose).not.toMatch(MARKUP);
    expect(prose).toContain("Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.");
    expect(prose).toContain("Mara Okafor; CEO; 2015");
    expect(prose).not.toMatch(/Name; Role/);
    expect(quotableProse("Plain text, as written.")).toBe("Plain text, as written.");
    expect(stripMarkup("## **Acme** hired `Bob`.")).toBe("Acme hired Bob.");
    expect(stripMarkup("| --- | --- |")).toBe("");
  });

  it("offline answers quote sentences without markup", () => {
    const chunk = { id: "c1", docId: "d1", text: MARKDOWN, score: 1 };
    const reference = { n: 1, docId: "d1", title: "Lumen", chunkId: "c1", start: 0, end: MARKDOWN.length };
    const answer = extractiveAnswer("Who founded Lumen Robotics? Who is the CTO?", [chunk], [reference]);
    const quoted = answer.split("\n").slice(1);
    expect(quoted.length).toBeGreaterThan(0);
    for (const line of quoted) expect(line).not.toMatch(MARKUP);
    expect(answer).toContain("Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. [1]");
  });

  it("offline summaries and reports quote descriptions without markup", async () => {
    const summary = await new ExtractiveSummarizer({ summaryMaxTokens: 200 }).summarize(
      { kind: "entity", name: "Lumen Robotics" },
      ["**Lumen Robotics** builds robot arms.", "| Name | Role |\n|---|---|\n| Lumen Robotics | maker |"],
    );
    expect(summary).toContain("Lumen Robotics builds robot arms.");
    expect(summary).not.toMatch(MARKUP);

    const entities = [entity("lumen", "A maker."), entity("mara", "A founder.")];
    const relationships = [relationship("lumen", "mara", 9, "**Mara Okafor** founded __Lumen__ in 2015.")];
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: ["lumen", "mara"] },
      index: new GraphIndex(entities, relationships),
      childReports: [],
      budget: 4000,
    });
    const report = await new ExtractiveReportWriter().write(context);
    const quotes = [report.summary, ...report.findings.map((f) => f.explanation)].join("\n");
    expect(quotes).toContain("Mara Okafor founded Lumen in 2015.");
    expect(quotes).not.toMatch(MARKUP);
  });
});
