import { describe, expect, it } from "vitest";
import { answerPieces, answerSources, referenceLabel } from "../../web/src/components/citations.js";
import { highlightPieces } from "../../web/src/components/highlight.js";

describe("web app: answer citations", () => {
  it("splits [n] and [n, m] citations out of the answer text", () => {
    expect(answerPieces("Vale founded it [1]. Born in Saltmere [2, 3].")).toEqual([
      { text: "Vale founded it " },
      { cite: 1 },
      { text: ". Born in Saltmere " },
      { cite: 2 },
      { cite: 3 },
      { text: "." },
    ]);
  });

  it("splits [C:id] community report citations out too, alone or beside passage numbers", () => {
    expect(answerPieces("Two groups [C:c1-abc, C:c0-9f]; Vale [C:c0-9f; 2].")).toEqual([
      { text: "Two groups " },
      { report: "c1-abc" },
      { report: "c0-9f" },
      { text: "; Vale " },
      { report: "c0-9f" },
      { cite: 2 },
      { text: "." },
    ]);
  });

  it("leaves brackets that are not citations as text", () => {
    expect(answerPieces("See [x], [C:] and [E:1].")).toEqual([{ text: "See [x], [C:] and [E:1]." }]);
  });
});

describe("web app: passage highlighting", () => {
  it("marks every case-insensitive match of the terms, merging overlaps", () => {
    const pieces = highlightPieces("Tidewell Robotics and tidewell drones", {
      terms: ["tidewell", "Tidewell Rob"],
    });
    expect(pieces.filter((p) => p.marked).map((p) => p.text)).toEqual(["Tidewell Rob", "tidewell"]);
    expect(pieces.map((p) => p.text).join("")).toBe("Tidewell Robotics and tidewell drones");
  });

  it("marks mention ranges in Chinese text and ignores ranges outside it", () => {
    const text = "青岚科技由林晓舟于2012年创立。";
    const pieces = highlightPieces(text, {
      ranges: [
        { start: 5, end: 8 },
        { start: 40, end: 50 },
      ],
    });
    expect(pieces).toEqual([
      { text: "青岚科技由", marked: false },
      { text: "林晓舟", marked: true },
      { text: "于2012年创立。", marked: false },
    ]);
  });
});

describe("web app: the sources under an answer", () => {
  const refs = [1, 2, 3, 4, 5].map((n) => ({ n, title: `Doc ${n}` }));

  it("lists only the passages and reports the answer cites, under their numbers", () => {
    const sources = answerSources("Founded in 2009 [1]. Its lens [4, 2]. Themes [C:c0-a].", refs, true);
    expect(sources?.heading).toBe("Sources");
    expect(sources?.references.map((r) => r.n)).toEqual([1, 2, 4]);
    expect(sources?.reports).toEqual(["c0-a"]);
  });

  it("lists the retrieved passages under another heading when the answer cites none, or there is none", () => {
    expect(answerSources("Nothing quoted.", refs, true)).toMatchObject({
      heading: "Retrieved passages",
      note: "the answer cites none of them",
      references: refs,
    });
    expect(answerSources("", refs, true)).toMatchObject({
      heading: "Retrieved passages",
      note: "context only: no answer was written",
    });
    // Still streaming: the citations may come yet.
    expect(answerSources("Founded in", refs, false)).toBeUndefined();
    expect(answerSources("Nothing matches.", [], true)).toBeUndefined();
  });

  it("names a reference by its document's title, with a PDF passage's pages", () => {
    expect(referenceLabel({ title: "Lumora Optics" })).toBe("Lumora Optics");
    expect(referenceLabel({ title: "brief.pdf", page: 3 })).toBe("brief.pdf, page 3");
    expect(referenceLabel({ title: "brief.pdf", page: 1, pageEnd: 2 })).toBe("brief.pdf, pages 1-2");
  });
});
