import { afterEach, describe, expect, it } from "vitest";
import { embedCommunityReports } from "../../src/community/embed-reports.js";
import { entityKey } from "../../src/merge/keys.js";
import { NOTHING_FOUND } from "../../src/query/answer/answer.js";
import { runQuery } from "../../src/query/query-engine.js";
import type { CommunityRecord } from "../../src/types.js";
import { buildFixture, type Fixture } from "./query-fixture.js";

const HARBOUR = "Tomas Brook runs the harbour ferries of Port Ellery, four boats crossing every hour.";
const ORCHARD = "The Nessel orchards grow quince and pear trees on the hills above Saltmere.";

function community(id: string, names: string[], title: string, summary: string): CommunityRecord {
  return {
    id,
    level: 0,
    parentId: null,
    childIds: [],
    entityKeys: names.map(entityKey),
    contentHash: id,
    reportHash: id,
    report: {
      title,
      summary,
      rating: 5,
      ratingExplanation: "Size.",
      findings: [],
      markdown: `# ${title}\n\n${summary}`,
      method: "extractive",
    },
  };
}

const COMMUNITIES = [
  community("c0-ferries", ["Tomas Brook", "Port Ellery"], "Tomas Brook and Port Ellery", HARBOUR),
  community("c0-orchards", ["Nessel", "Saltmere"], "Nessel and Saltmere", ORCHARD),
];

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function workspace({ withReports }: { withReports: boolean }): Promise<Fixture> {
  fixture = await buildFixture(
    [
      {
        doc: "harbour",
        text: HARBOUR,
        entities: ["Tomas Brook", "Port Ellery"],
        pairs: [["Tomas Brook", "Port Ellery"]],
      },
      { doc: "orchard", text: ORCHARD, entities: ["Nessel", "Saltmere"], pairs: [["Nessel", "Saltmere"]] },
    ],
    { config: { query: { communityLevel: 0 } } },
  );
  if (withReports) {
    await fixture.services.store.replaceCommunities(COMMUNITIES);
    await embedCommunityReports(fixture.services, COMMUNITIES);
  }
  return fixture;
}

describe("global, hybrid and mix on a workspace without community reports", () => {
  it("warn that there are none and say how to build them", async () => {
    const { services } = await workspace({ withReports: false });
    for (const mode of ["global", "hybrid", "mix"] as const) {
      const result = await runQuery(services, "Who runs the harbour ferries?", { mode });
      const warning = result.warnings?.find((w) => /no community reports/.test(w));
      expect(warning, mode).toMatch(/--no-communities/);
      // It does not blame --no-communities alone: a stopped run leaves none either.
      expect(warning, mode).toMatch(/was stopped/);
      expect(warning, mode).toContain("kgrag communities --rebuild");
      expect(warning, mode).toContain(`${mode} mode`);
    }
    // The modes that read no reports miss nothing.
    for (const mode of ["naive", "local"] as const) {
      const result = await runQuery(services, "Who runs the harbour ferries?", { mode });
      expect(result.warnings ?? [], mode).toEqual([]);
    }
  });

  it("do not warn once reports exist", async () => {
    const { services } = await workspace({ withReports: true });
    const result = await runQuery(services, "Who runs the harbour ferries?", { mode: "global" });
    expect(result.warnings ?? []).toEqual([]);
  });
});

describe("offline global mode's reports", () => {
  it("holds no report when the question shares nothing with any, agreeing with the answer", async () => {
    const { services } = await workspace({ withReports: true });
    const result = await runQuery(services, "zzqx flibber", { mode: "global" });
    expect(result.answer).toBe(NOTHING_FOUND);
    expect(result.context.communities).toEqual([]);
  });

  it("falls back to the reports that share a word with the question when none is similar enough", async () => {
    const { services } = await workspace({ withReports: true });
    const result = await runQuery(services, "quince?", { mode: "global", similarityThreshold: 0.99 });
    expect(result.context.communities.map((c) => c.id)).toEqual(["c0-orchards"]);
    expect(result.answer).toContain("[C:c0-orchards]");
  });

  it("still answers a whole-corpus question from the broadest reports", async () => {
    const { services } = await workspace({ withReports: true });
    const result = await runQuery(services, "What are the main themes?", { mode: "global" });
    expect(result.context.communities.map((c) => c.id).sort()).toEqual(["c0-ferries", "c0-orchards"]);
    expect(result.answer).toContain("[C:c0-ferries]");
  });
});

describe("a query on a workspace whose index run was stopped", () => {
  it("warns how many documents are not fully indexed, in every mode", async () => {
    const { services } = await workspace({ withReports: true });
    const warned = async (mode: "naive" | "local" | "mix") =>
      (await runQuery(services, "Who runs the harbour ferries?", { mode })).warnings?.find((w) =>
        /not fully indexed/.test(w),
      );
    expect(await warned("local")).toBeUndefined();
    await services.store.setDocumentStatus("harbour", "processing", null);
    await services.store.setDocumentStatus("orchard", "pending", null);
    for (const mode of ["naive", "local", "mix"] as const) {
      const warning = await warned(mode);
      expect(warning, mode).toMatch(/^2 documents are not fully indexed/);
      expect(warning, mode).toContain("kgrag index");
    }
    await services.store.setDocumentStatus("orchard", "processed", null);
    expect(await warned("local")).toMatch(/^1 document is not fully indexed/);
  });
});
