import { afterEach, describe, expect, it, vi } from "vitest";
import { readableCitations } from "../../src/community/citations.js";
import { embedCommunityReports } from "../../src/community/embed-reports.js";
import { offlineGlobalSearch } from "../../src/community/offline-global.js";
import { selectReports } from "../../src/community/select-reports.js";
import { reportSharesAWord } from "../../src/community/shared-words.js";
import { entityKey } from "../../src/merge/keys.js";
import { fitCommunities } from "../../src/query/context/context-communities.js";
import { communityLine } from "../../src/query/context/context-format.js";
import { lineTokens } from "../../src/query/context/line-tokens.js";
import { runQuery } from "../../src/query/query-engine.js";
import type { ContextCommunity, QueryResult } from "../../src/query/result.js";
import { resultText } from "../../src/query/result-text.js";
import type { CommunityRecord } from "../../src/types.js";
import { buildFixture, type Fixture, StageChat } from "./query-fixture.js";

// Counted: the offline answer quotes a summary that cites no report once per text, not per query.
vi.mock("../../src/community/citations.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/community/citations.js")>();
  return { ...actual, readableCitations: vi.fn(actual.readableCitations) };
});

// Counted: the offline ranking tests the hits for a shared word only as far as the answer reads them.
vi.mock("../../src/community/shared-words.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/community/shared-words.js")>();
  return { ...actual, reportSharesAWord: vi.fn(actual.reportSharesAWord) };
});

const WHALING = "Whaling ships from Nantucket hunted sperm whales across the Pacific.";
const LYON = "Lyon is a city in France on the Rhône river with a famous food culture.";

function community(id: string, level: number, names: string[], summary: string, childIds: string[] = []) {
  const record: CommunityRecord = {
    id,
    level,
    parentId: null,
    childIds,
    entityKeys: names.map(entityKey),
    contentHash: id,
    reportHash: id,
    report: {
      title: `Report ${id}`,
      summary,
      rating: 5,
      ratingExplanation: "Size.",
      findings: [{ summary: "A finding", explanation: `Detail [R:2] [C:${childIds[0] ?? id}]` }],
      markdown: `# Report ${id}\n\n${summary}`,
      method: "extractive",
    },
  };
  return record;
}

/**
 * Two top-level reports as the report writers produce them: [E:n]/[R:n] citing their own context,
 * and [C:<id>] citing a sub-report (not at the query's level) or a sibling report.
 */
const COMMUNITIES: CommunityRecord[] = [
  community(
    "c0-ships",
    0,
    ["Nantucket", "Pacific", "sperm whales"],
    "Whaling ships hunted sperm whales [R:1, R:4, 7]. Nantucket was their port [E:2]. The whale pod [C:c1-pod].",
    ["c1-pod"],
  ),
  community("c1-pod", 1, ["sperm whales"], "A pod of sperm whales [E:1]."),
  community(
    "c0-lyon",
    0,
    ["Lyon", "France"],
    "Lyon is a city in France [E:1; R:3]. Its river trade is like the whaling ports [C:c0-ships].",
  ),
];

/** Every report counts as similar, so both top-level reports reach the context. */
const GLOBAL = { mode: "global", similarityThreshold: -1 } as const;

const LOCAL_MARKER = /\[(?:[ER]):\d/;

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function reportFixture(chat: StageChat | null = null): Promise<Fixture> {
  fixture = await buildFixture(
    [
      { doc: "whaling", text: WHALING, entities: ["Nantucket", "Pacific", "sperm whales"] },
      { doc: "lyon", text: LYON, entities: ["Lyon", "France"], pairs: [["Lyon", "France"]] },
    ],
    { chat, config: { query: { communityLevel: 0 } } },
  );
  await fixture.services.store.replaceCommunities(COMMUNITIES);
  await embedCommunityReports(fixture.services, COMMUNITIES);
  return fixture;
}

/** Every [C:<id>] the text cites. */
function citedCommunities(text: string): string[] {
  return [...text.matchAll(/\[C:([^\],\s]+)/g)].map((m) => m[1] as string);
}

function expectResolvable(result: QueryResult): void {
  const shown = new Map(result.context.communities.map((c) => [c.id, c.title]));
  for (const id of citedCommunities(result.answer))
    expect(shown.has(id), `[C:${id}] in the answer`).toBe(true);
  for (const c of result.context.communities) {
    expect(c.summary).not.toMatch(LOCAL_MARKER);
    for (const id of citedCommunities(c.summary)) expect(shown.has(id), `[C:${id}] in ${c.id}`).toBe(true);
  }
  expect(result.answer).not.toMatch(LOCAL_MARKER);
}

describe("readableCitations", () => {
  it("drops [E:n]/[R:n] and the [C:<id>] of reports the reader cannot see", () => {
    const shown = new Set(["c0-a"]);
    expect(readableCitations("Ships sail [R:1, R:4, 7]. Port [E:2].", shown)).toBe("Ships sail. Port.");
    expect(readableCitations("Pod [C:c1-x] and fleet [C:c0-a].", shown)).toBe("Pod and fleet [C:c0-a].");
    expect(readableCitations("Both [C:c1-x, C:c0-a; E:3].", shown)).toBe("Both [C:c0-a].");
  });

  it("leaves passage citations and other brackets alone", () => {
    const text = "Lyon is in France [1][2]; see [note] and [Section 3].";
    expect(readableCitations(text, new Set())).toBe(text);
  });

  it("keeps passage numbers that an answer writes in the same bracket as a report id", () => {
    const shown = new Set(["c0-1"]);
    expect(readableCitations("Erosion grows [C:c0-1, 3].", shown)).toBe("Erosion grows [C:c0-1, 3].");
    expect(readableCitations("Erosion grows [C:c9-9, 4].", shown)).toBe("Erosion grows [4].");
    expect(readableCitations("Ships [E:1, 4].", shown)).toBe("Ships.");
  });

  it("keeps only the passage numbers an answer's references hold, when it is given them", () => {
    const shown = new Set(["c0-1"]);
    const passages = new Set([1, 2, 3]);
    expect(readableCitations("[2]. Invented [42].", shown, passages)).toBe("[2]. Invented.");
    expect(readableCitations("Both [2, 42] and [1,3].", shown, passages)).toBe("Both [2] and [1,3].");
    expect(readableCitations("Grows [C:c0-1, 9].", shown, passages)).toBe("Grows [C:c0-1].");
    // Without references (report text), a bare number is left alone.
    expect(readableCitations("Invented [42].", shown)).toBe("Invented [42].");
  });
});

describe("fitCommunities", () => {
  const report = (id: string, summary: string): ContextCommunity => ({ id, level: 0, title: id, summary });

  it("keeps the reports the analysis cites, even ranked last under a tight budget", () => {
    const communities = [
      report("c0-a", "First report about harbours. ".repeat(8)),
      report("c0-b", "Second report about cities. ".repeat(8)),
      report("c0-c", "Third report about whales."),
    ];
    const analysis = "Whales matter most [C:c0-c], ports too [C:c0-zz].";
    // Room for the cited whale report and the analysis, not for the long harbour report.
    const budget = lineTokens(communityLine(communities[2]!)) + lineTokens(analysis) + 2 + 5;
    const fitted = fitCommunities({ communities, communityAnalysis: analysis }, budget);
    expect(fitted.communities.map((c) => c.id)).toEqual(["c0-c"]);
    expect(fitted.analysis).toBe("Whales matter most [C:c0-c], ports too.");
    expect(fitted.tokens).toBeLessThanOrEqual(budget);
  });

  it("resolves a summary's [C:<id>] against the reports that made it into the context", () => {
    const fitted = fitCommunities(
      {
        communities: [report("c0-a", "Ports [C:c0-b] and pods [C:c1-pod]."), report("c0-b", "Cities.")],
        communityAnalysis: null,
      },
      1000,
    );
    expect(fitted.communities[0]?.summary).toBe("Ports [C:c0-b] and pods.");
    expect(fitted.analysis).toBeNull();
  });
});

describe("community report citations in query results", () => {
  it("offline: summaries lose their local markers and every [C:<id>] of the answer is in the context", async () => {
    const f = await reportFixture();
    const result = await runQuery(f.services, "What are the main themes?", GLOBAL);
    expect(result.context.communities.map((c) => c.id).sort()).toEqual(["c0-lyon", "c0-ships"]);
    expectResolvable(result);
    expect([...new Set(citedCommunities(result.answer))].sort()).toEqual(["c0-lyon", "c0-ships"]);
    const ships = result.context.communities.find((c) => c.id === "c0-ships");
    expect(ships?.summary).toBe(
      "Whaling ships hunted sperm whales. Nantucket was their port. The whale pod.",
    );
    const lyon = result.context.communities.find((c) => c.id === "c0-lyon");
    expect(lyon?.summary).toContain("whaling ports [C:c0-ships]");
  });

  it("offline: a summary citing no report is cleaned once per text; one citing a report follows the reports shown", async () => {
    const f = await reportFixture();
    const reports = selectReports(COMMUNITIES, 1);
    const pod = "A pod of sperm whales [E:1].";
    const quote = (question: string, offlineReports: number) =>
      offlineGlobalSearch({ ...f.services, chat: null }, question, reports, { offlineReports });
    const cleaned = vi.mocked(readableCitations);
    cleaned.mockClear();
    for (let i = 0; i < 2; i++) {
      const all = await quote("Which ships hunted whales, and what is Lyon?", 3);
      const summaries = new Map(all.communities.map((c) => [c.id, c.summary]));
      expect(summaries.get("c1-pod")).toBe("A pod of sperm whales.");
      expect(summaries.get("c0-lyon")).toContain("whaling ports [C:c0-ships]");
      expect(summaries.get("c0-ships")).toContain("The whale pod [C:c1-pod].");
    }
    expect(cleaned.mock.calls.filter(([text]) => text === pod)).toHaveLength(0);
    // Lyon alone: the report its summary cites is not shown, so the citation goes.
    const lyonOnly = await quote("What is Lyon, the city in France?", 1);
    expect(lyonOnly.communities.map((c) => c.id)).toEqual(["c0-lyon"]);
    expect(lyonOnly.communities[0]?.summary).toBe(
      "Lyon is a city in France. Its river trade is like the whaling ports.",
    );
  });

  it("offline: reports sharing a word with the question go first, tested only as far as the answer reads", async () => {
    const f = await reportFixture();
    const reports = selectReports(COMMUNITIES, 1);
    const quote = (offlineReports: number) =>
      offlineGlobalSearch({ ...f.services, chat: null }, "Which ships hunted whales?", reports, {
        offlineReports,
      });
    const all = await quote(3);
    // Lyon's report shares no word with the question: it goes last, whatever its similarity.
    expect(all.communities.map((c) => c.id).at(-1)).toBe("c0-lyon");
    const tested = vi.mocked(reportSharesAWord);
    tested.mockClear();
    const first = await quote(1);
    expect(first.communities.map((c) => c.id)).toEqual([all.communities[0]?.id]);
    // The first report, and the one read to see that the answer is full: not all three.
    expect(tested.mock.calls.length).toBeLessThan(reports.length);
  });

  it("asks the embedder once a query: the reports are ranked with the question's vector from the query's one call", async () => {
    const f = await reportFixture();
    const embedder = f.services.embedder;
    const embed = embedder.embed.bind(embedder);
    const calls: string[][] = [];
    embedder.embed = (texts) => {
      calls.push(texts);
      return embed(texts);
    };
    const question = "Which ships hunted whales from Nantucket?";
    for (const mode of ["global", "hybrid", "mix"] as const) {
      calls.length = 0;
      const result = await runQuery(f.services, question, {
        mode,
        similarityThreshold: -1,
        contextOnly: true,
      });
      expect(
        result.context.communities.map((c) => c.id),
        mode,
      ).toContain("c0-ships");
      expect(calls, mode).toHaveLength(1);
      expect(calls[0], mode).toContain(question);
    }
  });

  it("the terminal view lists each community source as [C:<id>] Title", async () => {
    const f = await reportFixture();
    const result = await runQuery(f.services, "What are the main themes?", GLOBAL);
    const text = resultText(result);
    for (const c of result.context.communities) expect(text).toContain(`[C:${c.id}] ${c.title}`);
    expect(text.indexOf("Sources:")).toBeLessThan(text.indexOf("[C:c0-ships] Report c0-ships"));
  });

  it("with a model: the reports the analysis cites are in the context; stray markers leave the answer", async () => {
    const chat = new StageChat({
      keywords: () => JSON.stringify({ high_level_keywords: ["themes"], low_level_keywords: ["whaling"] }),
      "global-map": (request) => {
        const prompt = request.messages.map((m) => m.content).join("\n");
        return JSON.stringify({
          points: [...prompt.matchAll(/=====\[C:([^\]]+)\]=====/g)].map((m) => ({
            description: `Theme of ${m[1]} [C:${m[1]}]`,
            score: m[1] === "c0-ships" ? 90 : 10,
          })),
        });
      },
      "global-reduce": () => "Whaling dominates [C:c0-ships] [R:4]; cities matter less [C:c0-lyon].",
      answer: () => "Whaling [C:c0-ships] [E:2] and a pod [C:c1-pod] are the themes [1].",
    });
    const f = await reportFixture(chat);
    const result = await runQuery(f.services, "What are the main themes?", GLOBAL);
    const ids = result.context.communities.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(["c0-ships", "c0-lyon"]));
    expect(result.answer).toBe("Whaling [C:c0-ships] and a pod are the themes [1].");
    expectResolvable(result);
    const prompt = chat.requests
      .find((r) => r.stage === "answer")
      ?.messages.map((m) => m.content)
      .join("\n");
    expect(prompt).toContain("Whaling dominates [C:c0-ships]; cities matter less [C:c0-lyon].");
    expect(prompt).not.toMatch(LOCAL_MARKER);
  });
});
