import { describe, expect, it } from "vitest";
import { GraphIndex } from "../../src/community/graph-index.js";
import { renderReport } from "../../src/community/render-report.js";
import { reportCitations } from "../../src/community/report-citations.js";
import { buildReportContext } from "../../src/community/report-context.js";
import type { CommunityReport } from "../../src/types.js";
import { entity, relationship } from "../support/community-fake-store.js";

const childReport: CommunityReport = {
  title: "The bee keepers",
  summary: "Keepers of bees.",
  rating: 3,
  ratingExplanation: "",
  findings: [],
  markdown: "# The bee keepers\n",
  method: "llm",
};

/** Members: "ADA — LOVELACE" (a name holding the label's separator, first of its pair), ZED, BOB. */
const MEMBERS = new Set(["ADA — LOVELACE", "ZED", "BOB"]);

/** A report on the members and a child report, whose summary cites `summary`'s ids. */
function renderedReport(summary: string) {
  const entities = [entity("ada — lovelace"), entity("zed"), entity("bob")];
  const context = buildReportContext({
    community: { id: "c1-x", level: 1, entityKeys: entities.map((e) => e.key) },
    index: new GraphIndex(entities, [
      relationship("ada — lovelace", "zed", 5),
      relationship("bob", "zed", 1),
    ]),
    childReports: [],
    budget: 4000,
  });
  const withChild = {
    ...context,
    childReports: [{ id: "c0-kid", entityKeys: ["bob"], report: childReport }],
  };
  const fields = { title: "T", summary, rating: 5, ratingExplanation: "", findings: [] };
  return { markdown: renderReport(fields, "llm", withChild), context: withChild };
}

describe("reportCitations", () => {
  it("says what each id a report cites stands for: entity, relationship (both names) or child report", () => {
    const { markdown, context } = renderedReport("Ada leads [E:1, R:1]. See [C:c0-kid] and [R:2].");
    const idOf = (sourceKey: string) =>
      context.relationships.find((r) => r.sourceKey === sourceKey)?.id ?? "";
    expect(reportCitations(markdown, MEMBERS)).toEqual({
      "E:1": { kind: "entity", name: context.entities[0]?.name },
      // Split where both sides are members, not at the first separator.
      [idOf("ada — lovelace")]: { kind: "relationship", source: "ADA — LOVELACE", target: "ZED" },
      [idOf("bob")]: { kind: "relationship", source: "BOB", target: "ZED" },
      "C:c0-kid": { kind: "community", id: "c0-kid", title: "The bee keepers" },
    });
  });

  it("leaves out ids the report does not list, and reads nothing from a report without references", () => {
    const { markdown } = renderedReport("Ada [E:1] and someone unknown [E:99].");
    expect(Object.keys(reportCitations(markdown, MEMBERS))).toEqual(["E:1"]);
    expect(reportCitations("# A report\n\nNo citations [E:1].\n", MEMBERS)).toEqual({});
  });
});
