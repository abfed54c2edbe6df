import { describe, expect, it } from "vitest";
import { GraphIndex } from "../../src/community/graph-index.js";
import { buildReportContext, type ChildReport } from "../../src/community/report-context.js";
import type { CommunityReport, EntityRecord, RelationshipRecord } from "../../src/types.js";
import { countTokens } from "../../src/util/tokens.js";
import { entity, relationship } from "../support/community-fake-store.js";

const words = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(" ");

function graph(entities: EntityRecord[], relationships: RelationshipRecord[]) {
  return new GraphIndex(entities, relationships);
}

/** A hub with `spokes` leaves that are also chained to each other: every node has several edges. */
function wheel(spokes: number, descriptionWords = 12) {
  const keys = Array.from({ length: spokes }, (_, i) => `leaf${String(i).padStart(2, "0")}`);
  const entities = ["hub", ...keys].map((k) => entity(k, `${k} ${words(descriptionWords, "about")}`));
  const relationships = [
    ...keys.map((k) => relationship("hub", k, 2, `hub and ${k} ${words(descriptionWords, "link")}`)),
    ...keys.slice(1).map((k, i) => relationship(keys[i] as string, k, 1, `${keys[i]} next to ${k}`)),
  ];
  return { keys: ["hub", ...keys], entities, relationships };
}

function report(title: string, summary: string): CommunityReport {
  return {
    title,
    summary,
    rating: 5,
    ratingExplanation: "",
    findings: [{ summary: `${title} finding`, explanation: "explained [E:1, R:2]" }],
    markdown: `# ${title}`,
    method: "llm",
  };
}

describe("buildReportContext", () => {
  it("includes every internal edge when they fit (not one edge per node), with entity and relationship ids", () => {
    const { keys, entities, relationships } = wheel(12);
    const outside = relationship("hub", "stranger", 9, "not internal");
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: keys },
      index: graph([...entities, entity("stranger")], [...relationships, outside]),
      childReports: [],
      budget: 8000,
    });
    expect(context.relationships).toHaveLength(relationships.length);
    expect(context.omittedRelationships).toBe(0);
    expect(context.entities.map((e) => e.key).sort()).toEqual([...keys].sort());
    expect(context.text).not.toContain("not internal");
    expect(context.text).toContain(`R:${relationships.length}|`);
    expect(context.text).toMatch(/^E:1\|HUB\|/m);
    // Most connected first: the hub's edges (combined degree 14 or 15) precede the chain's.
    expect(context.relationships[0]?.sourceKey).toBe("hub");
  });

  it("stays within the budget and leaves no room for any omitted edge", () => {
    const { keys, entities, relationships } = wheel(30, 20);
    const index = graph(entities, relationships);
    const budget = 600;
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: keys },
      index,
      childReports: [],
      budget,
    });
    expect(countTokens(context.text)).toBeLessThanOrEqual(budget);
    expect(context.omittedRelationships).toBeGreaterThan(0);
    expect(context.relationships.length + context.omittedRelationships).toBe(relationships.length);
    // The cheapest omitted edge costs at most a lone-edge context; the slack must be below that.
    const loneEdgeCost = Math.min(
      ...relationships
        .filter((r) => !context.relationships.some((c) => c.key === r.key))
        .map((r) =>
          countTokens(
            buildReportContext({
              community: { id: "c9", level: 0, entityKeys: [r.sourceKey, r.targetKey] },
              index: graph(entities, [r]),
              childReports: [],
              budget: 8000,
            }).text,
          ),
        ),
    );
    expect(budget - countTokens(context.text)).toBeLessThan(loneEdgeCost);
  });

  it("skips an edge too large for the room left but still takes the smaller ones after it", () => {
    const { keys, entities, relationships } = wheel(6, 4);
    // The strongest, most connected edge comes first; its (capped) description still cannot fit.
    const huge = relationship("hub", "leaf00", 50, words(3000, "bulk"));
    const rels = relationships.map((r) => (r.key === huge.key ? huge : r));
    const budget = 150;
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: keys },
      index: graph(entities, rels),
      childReports: [],
      budget,
    });
    expect(countTokens(context.text)).toBeLessThanOrEqual(budget);
    expect(context.relationships.map((r) => r.key)).not.toContain(huge.key);
    expect(context.relationships.length).toBeGreaterThan(0);
    expect(context.omittedRelationships).toBe(rels.length - context.relationships.length);
  });

  it("uses the raw detail and no child report while everything fits", () => {
    const { keys, entities, relationships } = wheel(5);
    const child: ChildReport = {
      id: "c1-a",
      entityKeys: keys.slice(0, 3),
      report: report("Child", "child summary"),
    };
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: keys },
      index: graph(entities, relationships),
      childReports: [child],
      budget: 8000,
    });
    expect(context.childReports).toEqual([]);
    expect(context.text).not.toContain("[C:");
  });

  it("substitutes children's reports, largest first, when the raw detail is over budget", () => {
    const left = wheel(14, 30);
    const rightKeys = Array.from({ length: 6 }, (_, i) => `r${i}`);
    const rightEntities = rightKeys.map((k) => entity(k, words(30, "right")));
    const rightRels = rightKeys
      .slice(1)
      .map((k, i) => relationship(rightKeys[i] as string, k, 1, words(30, "rr")));
    const bridge = relationship("hub", "r0", 3, "the bridge between both halves");
    const index = graph([...left.entities, ...rightEntities], [...left.relationships, ...rightRels, bridge]);
    const big: ChildReport = {
      id: "c1-big",
      entityKeys: left.keys,
      report: report("Big child", "big summary [E:3]"),
    };
    const small: ChildReport = {
      id: "c1-small",
      entityKeys: rightKeys,
      report: report("Small child", "small"),
    };
    const budget = 900;
    const context = buildReportContext({
      community: { id: "c0-x", level: 0, entityKeys: [...left.keys, ...rightKeys] },
      index,
      childReports: [small, big],
      budget,
    });
    expect(countTokens(context.text)).toBeLessThanOrEqual(budget);
    expect(context.childReports[0]?.id).toBe("c1-big");
    expect(context.text).toContain("[C:c1-big]");
    expect(context.text).toContain("big summary");
    // The child's own citations refer to its context, not this one.
    expect(context.text).not.toContain("[E:3]");
    expect(context.text).not.toContain("explained [E:1");
    // Edges inside the substituted child are covered by its report; the rest come in raw.
    expect(
      context.relationships.some((r) => left.keys.includes(r.sourceKey) && left.keys.includes(r.targetKey)),
    ).toBe(false);
    expect(context.relationships.map((r) => r.key)).toContain(bridge.key);
    expect(context.omittedRelationships).toBe(0);
  });

  it("describes a member that has no internal relationship", () => {
    const context = buildReportContext({
      community: { id: "c1-s", level: 1, entityKeys: ["solo"] },
      index: graph([entity("solo", "a lone figure")], []),
      childReports: [],
      budget: 500,
    });
    expect(context.entities.map((e) => e.key)).toEqual(["solo"]);
    expect(context.text).toContain("a lone figure");
  });
});
