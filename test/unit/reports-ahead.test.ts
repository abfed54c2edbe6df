import { describe, expect, it } from "vitest";
import type { ReportContext } from "../../src/community/report-context.js";
import type { ReportWriter } from "../../src/community/report-writer.js";
import { askReportsAhead, ReportsAhead } from "../../src/pipeline/reports-ahead.js";
import type { CommunityReport } from "../../src/types.js";
import { CommunityFakeStore, communityServices, loadGraph } from "../support/community-fake-store.js";
import { joinedCliques } from "../support/community-graphs.js";

function context(communityId: string, text = `about ${communityId}`): ReportContext {
  return {
    communityId,
    level: 0,
    members: [],
    entities: [],
    relationships: [],
    childReports: [],
    internalRelationshipCount: 0,
    omittedRelationships: 0,
    text,
  };
}

/** A writer that records the contexts it was asked for; `failFirst` fails its first answer. */
function recordingWriter(failFirst = false): ReportWriter & { asked: string[] } {
  const asked: string[] = [];
  return {
    kind: "llm",
    asked,
    write: async (c) => {
      asked.push(c.text);
      if (failFirst && asked.length === 1) throw new Error("endpoint down");
      return { title: c.text, method: "llm" } as unknown as CommunityReport;
    },
  };
}

describe("ReportsAhead", () => {
  it("answers a context asked ahead without asking again", async () => {
    const inner = recordingWriter();
    const writer = new ReportsAhead(inner);
    writer.askAhead(context("c1"));
    const report = await writer.write(context("c1"));
    expect(report.title).toBe("about c1");
    expect(inner.asked).toEqual(["about c1"]);
  });

  it("asks again for a context that came out differently, and once more for a second write", async () => {
    const inner = recordingWriter();
    const writer = new ReportsAhead(inner);
    writer.askAhead(context("c1"));
    await writer.write(context("c1", "about c1 after a merge"));
    await writer.write(context("c1"));
    await writer.write(context("c1"));
    expect(inner.asked).toEqual(["about c1", "about c1 after a merge", "about c1"]);
    await writer.settled();
  });

  it("asks again when the answer asked ahead failed", async () => {
    const inner = recordingWriter(true);
    const writer = new ReportsAhead(inner);
    writer.askAhead(context("c1"));
    await writer.settled();
    const report = await writer.write(context("c1"));
    expect(report.title).toBe("about c1");
    expect(inner.asked).toEqual(["about c1", "about c1"]);
  });
});

/** A settled graph: no description waits for its summary. */
function settledStore(): CommunityFakeStore {
  const none = async () => [];
  return Object.assign(new CommunityFakeStore(), {
    entitiesNeedingSummary: none,
    relationshipsNeedingSummary: none,
  });
}

describe("askReportsAhead", () => {
  it("gives each report asked a turn to go out before building the next context", async () => {
    const store = settledStore();
    loadGraph(store, joinedCliques(4, 5));
    const services = communityServices(store, null, { community: { maxClusterSize: 6 } });
    const events: string[] = [];
    const writer = new ReportsAhead({
      kind: "llm",
      write: async (c) => {
        events.push("asked");
        // What a request needs to go out: the event loop's next turn.
        setImmediate(() => events.push("turn"));
        return { title: c.text, method: "llm" } as unknown as CommunityReport;
      },
    });
    await askReportsAhead(services, writer, 8);
    await writer.settled();
    expect(events.filter((e) => e === "asked").length).toBeGreaterThan(1);
    expect(events.slice(0, 4)).toEqual(["asked", "turn", "asked", "turn"]);
  });
});
