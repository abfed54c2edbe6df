import { describe, expect, it } from "vitest";
import { embedCommunityReports } from "../../src/community/embed-reports.js";
import { packReportBatches } from "../../src/community/global-batches.js";
import { globalSearch } from "../../src/community/global-search.js";
import { selectReports } from "../../src/community/select-reports.js";
import type { ChatRequest } from "../../src/llm/chat-model.js";
import type { CommunityRecord } from "../../src/types.js";
import { countTokens } from "../../src/util/tokens.js";
import { ScriptedChat } from "../support/community-chat.js";
import { CommunityFakeStore, communityServices } from "../support/community-fake-store.js";

function community(
  id: string,
  level: number,
  entityKeys: string[],
  parentId: string | null = null,
  childIds: string[] = [],
  summary = `Summary of ${id}.`,
): CommunityRecord {
  return {
    id,
    level,
    parentId,
    childIds,
    entityKeys,
    contentHash: id,
    reportHash: id,
    report: {
      title: `Title ${id}`,
      summary,
      rating: 5,
      ratingExplanation: "",
      findings: [{ summary: `Finding of ${id}`, explanation: "x ".repeat(40) }],
      markdown: `# Title ${id}\n\n${summary}\n\n${"Detail. ".repeat(30)}`,
      method: "llm",
    },
  };
}

/** A: level 0 split into A1 and A2; B: level 0 leaf; A1 split again into A1a and A1b. */
const hierarchy = [
  community("A", 0, ["a1", "a2", "a3", "a4", "a5"], null, ["A1", "A2"]),
  community("B", 0, ["b1", "b2"]),
  community("A1", 1, ["a1", "a2", "a3"], "A", ["A1a", "A1b"]),
  community("A2", 1, ["a4", "a5"], "A"),
  community("A1a", 2, ["a1", "a2"], "A1"),
  community("A1b", 2, ["a3"], "A1"),
];

describe("selectReports", () => {
  it("rolls each entity up to its deepest community at or below the level", () => {
    const ids = (level: number) =>
      selectReports(hierarchy, level)
        .map((c) => c.id)
        .sort();
    expect(ids(0)).toEqual(["A", "B"]);
    expect(ids(1)).toEqual(["A1", "A2", "B"]);
    expect(ids(2)).toEqual(["A1a", "A1b", "A2", "B"]);
    expect(ids(9)).toEqual(ids(2));
  });

  it("skips communities without a report", () => {
    const withoutB = hierarchy.map((c) => (c.id === "B" ? { ...c, report: null } : c));
    expect(selectReports(withoutB, 0).map((c) => c.id)).toEqual(["A"]);
  });
});

describe("packReportBatches", () => {
  it("puts every report in exactly one batch within the budget, in a seeded order", () => {
    const reports = selectReports(hierarchy, 2);
    const batches = packReportBatches(reports, 200, 42);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flatMap((b) => b.communityIds).sort()).toEqual(reports.map((c) => c.id).sort());
    for (const batch of batches) expect(countTokens(batch.text)).toBeLessThanOrEqual(200);
    expect(packReportBatches(reports, 200, 42)).toEqual(batches);
  });
});

function mapReply(request: ChatRequest): string {
  const ids = [...ScriptedChat.prompt(request).matchAll(/=====\[C:([^\]]+)\]=====/g)].map((m) => m[1]);
  const points = ids.flatMap((id) => [
    { description: `Theme from ${id} [C:${id}]`, score: id === "A2" ? 90 : 40 },
    { description: `Irrelevant bit of ${id}`, score: 0 },
    { description: `Bad score from ${id}`, score: 150 },
    { description: `Unscored from ${id}`, score: "lots" },
  ]);
  return JSON.stringify({ points });
}

describe("globalSearch with an LLM", () => {
  async function run(config = {}) {
    const store = new CommunityFakeStore();
    store.communities = structuredClone(hierarchy);
    const chat = new ScriptedChat((request) =>
      request.stage === "global-map" ? mapReply(request) : "The main themes are A2 [C:A2] and others.",
    );
    const result = await globalSearch(communityServices(store, chat, config), "What are the main themes?", {
      level: 1,
    });
    return { chat, result };
  }

  it("maps batches of reports to scored points and reduces the best into the answer", async () => {
    const { chat, result } = await run();
    expect(chat.stages()).toEqual(["global-map", "global-reduce"]);
    expect(result.method).toBe("llm");
    expect(result.answer).toBe("The main themes are A2 [C:A2] and others.");
    // Score-0 and invalid points are gone; only valid scored points remain.
    expect(result.points.map((p) => p.score).sort()).toEqual([40, 40, 90]);
    expect(result.points.find((p) => p.score === 90)?.communityIds).toEqual(["A2"]);
    expect(result.communities[0]).toMatchObject({ id: "A2", level: 1, title: "Title A2", score: 90 });
    expect(
      result.communities
        .slice(1)
        .map((c) => [c.id, c.score])
        .sort(),
    ).toEqual([
      ["A1", 40],
      ["B", 40],
    ]);
    const reducePrompt = ScriptedChat.prompt(chat.requests[1]!);
    expect(reducePrompt.indexOf("Theme from A2")).toBeLessThan(reducePrompt.indexOf("Theme from A1"));
    expect(reducePrompt).not.toContain("Irrelevant bit");
  });

  it("splits the map over several batches and keeps the reduce within the budget", async () => {
    const budget = 350;
    const { chat, result } = await run({ query: { globalBatchTokens: budget } });
    const stages = chat.stages();
    expect(stages.filter((s) => s === "global-map").length).toBeGreaterThan(1);
    expect(stages.at(-1)).toBe("global-reduce");
    for (const request of chat.requests)
      expect(countTokens(ScriptedChat.prompt(request))).toBeLessThanOrEqual(budget);
    expect(result.points).toHaveLength(3);
  });

  it("reduces only the best-scored points that fit the budget", async () => {
    const store = new CommunityFakeStore();
    store.communities = structuredClone(hierarchy);
    const chat = new ScriptedChat((request) => {
      if (request.stage === "global-reduce") return "answer";
      const points = Array.from({ length: 30 }, (_, i) => ({
        description: `Point number ${String(i).padStart(2, "0")} ${"about things ".repeat(10)}`,
        score: i + 1,
      }));
      return JSON.stringify({ points });
    });
    const budget = 600;
    const result = await globalSearch(
      communityServices(store, chat, { query: { globalBatchTokens: budget } }),
      "Q?",
      {
        level: 0,
      },
    );
    const reducePrompt = ScriptedChat.prompt(chat.requests.at(-1)!);
    expect(countTokens(reducePrompt)).toBeLessThanOrEqual(budget);
    const kept = [...reducePrompt.matchAll(/Importance score: (\d+)/g)].map((m) => Number(m[1]));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(result.points.length);
    const best = result.points
      .map((p) => p.score)
      .sort((a, b) => b - a)
      .slice(0, kept.length);
    expect(kept).toEqual(best);
  });

  it("does not call the reduce step when no report says anything relevant", async () => {
    const store = new CommunityFakeStore();
    store.communities = structuredClone(hierarchy);
    const chat = new ScriptedChat(() => JSON.stringify({ points: [{ description: "nothing", score: 0 }] }));
    const result = await globalSearch(communityServices(store, chat), "Who won the 1998 cup?", { level: 0 });
    expect(chat.stages()).toEqual(["global-map"]);
    expect(result.points).toEqual([]);
    expect(result.answer).toMatch(/None of the community reports/);
  });
});

describe("globalSearch offline", () => {
  it("answers with the summaries of the reports closest to the question, labelled extractive", async () => {
    const store = new CommunityFakeStore();
    store.communities = [
      community("W", 0, ["w"], null, [], "Whaling ships hunt sperm whales across the Pacific."),
      community("G", 0, ["g"], null, [], "Gardening clubs trade tulip bulbs in spring."),
      community("T", 0, ["t"], null, [], "Train timetables change in winter."),
    ];
    const services = communityServices(store);
    await embedCommunityReports(services, store.communities);
    const result = await globalSearch(services, "Which ships hunt whales?", { offlineReports: 2 });
    expect(result.method).toBe("extractive");
    expect(result.answer).toMatch(/^Extractive answer \(offline, no LLM\)/);
    expect(result.communities.map((c) => c.id)[0]).toBe("W");
    expect(result.communities).toHaveLength(2);
    expect(result.answer).toContain(
      "Whaling ships hunt sperm whales across the Pacific. [C:W]".split(" [")[0],
    );
    expect(result.answer).toContain("[C:W]");
  });

  it("ranks the reports the vector search reached by similarity, then the rest by rating", async () => {
    const store = new CommunityFakeStore();
    const whales = Array.from({ length: 64 }, (_, i) =>
      community(`W${i}`, 0, [`w${i}`], null, [], `Whaling ships ${i} hunt whales near island ${i}.`),
    );
    const unrelated = ["X", "Y"].map((id) => community(id, 0, [id], null, [], "Tulip bulbs in spring."));
    const [x, y] = unrelated as [CommunityRecord, CommunityRecord];
    if (y.report) y.report.rating = 9;
    store.communities = [x, ...whales, y];
    const services = communityServices(store);
    await embedCommunityReports(services, store.communities);
    const result = await globalSearch(services, "Which whaling ships hunt whales?", { offlineReports: 66 });
    const ids = result.communities.map((c) => c.id);
    expect(ids).toHaveLength(66);
    expect(ids.slice(-2)).toEqual(["Y", "X"]);
  });

  it("ranks a report sharing a word with an English question above a Chinese one its template words bring close", async () => {
    // Offline reports as the extractive writer words them: the Chinese report's English template
    // and structure are most of its Latin words, so the lexical similarity puts it first.
    const chinese = extractiveReport("Z", "澄州, 维森 and 芯片", ZH_BODY);
    const english = extractiveReport("E", "Gullwing, Carrow Bay and Tidewell Robotics", EN_BODY);
    const store = new CommunityFakeStore();
    store.communities = [chinese, english];
    const services = communityServices(store);
    await embedCommunityReports(services, store.communities);
    const question = "Is Saltmere a village?";
    const similarity = await services.store.searchVectors(
      "communities",
      (await services.embedder.embed([question]))[0] ?? [],
      2,
    );
    // The premise: by similarity alone the Chinese report, which shares no word with the question, comes first.
    expect(similarity.map((hit) => hit.id)).toEqual(["Z", "E"]);
    const result = await globalSearch(services, question, { level: 0 });
    expect(result.communities.map((c) => c.id)).toEqual(["E", "Z"]);
    expect(result.answer.indexOf("[C:E]")).toBeLessThan(result.answer.indexOf("[C:Z]"));
  });

  it("says how to get reports when there are none", async () => {
    const result = await globalSearch(communityServices(new CommunityFakeStore()), "Main themes?");
    expect(result.communities).toEqual([]);
    expect(result.answer).toContain("kgrag communities --rebuild");
  });
});

/** A report as the offline extractive writer lays it out: template lines around the community's sentences. */
function extractiveReport(
  id: string,
  title: string,
  body: { summary: string; findings: string },
): CommunityRecord {
  const base = community(id, 0, [id.toLowerCase()], null, [], body.summary);
  if (!base.report) throw new Error("no report");
  const rating =
    "**Rating:** 10/10. Extractive rating from the community's size; no model judged its importance.";
  base.report = {
    ...base.report,
    title,
    method: "extractive",
    markdown: `# ${title}\n\n_Extractive report (offline, written without an LLM)._\n\n${body.summary}\n\n${rating}\n\n## Findings\n\n${body.findings}`,
  };
  return base;
}

const ZH_BODY = {
  summary:
    "A community of 39 entities centred on 澄州, 维森 and 芯片. 2015年，澄州与维森结为友好城市。 [R:1, R:20] 公司专注于低功耗语音识别芯片，员工约三百人。 [R:40]",
  findings: [
    "### 澄州 and 维森\n\n2015年，澄州与维森结为友好城市。 [R:1]",
    "### 芯片 and 语音\n\n公司专注于低功耗语音识别芯片，员工约三百人。 [R:40]",
  ].join("\n\n"),
};

const EN_BODY = {
  summary:
    "A community of 58 entities centred on Gullwing, Carrow Bay and Tidewell Robotics. Tidewell Robotics unveiled the Gullwing survey drone with a live flight over the harbour. [R:2, R:18] Since 2021 most Halcyon lenses go to Tidewell Robotics in Carrow Bay, which mounts them on its Gullwing survey drone under a five-year supply agreement. [R:51, R:1]",
  findings: [
    "### Carrow Bay and Tidewell Robotics\n\nIdris Vale, the founder of Tidewell Robotics, was born in 1984 in Saltmere, a village of salt pans and wind pumps south of Carrow Bay. Vale left Tidewell Robotics in 2024 to found Saltmere Labs. [R:5]",
    "### Gullwing and Halcyon\n\nLumora Optics and Tidewell Robotics signed a five-year agreement under which Lumora supplies the Halcyon lenses for every Gullwing. Each Gullwing carries two Halcyon lenses made by Lumora Optics, and it takes spoken commands through the Tingchao voice chip. [R:4, R:61]",
    "### Gullwing and coastal councils\n\nCouncils along the Ellery coast are Tidewell's largest customers; they use Gullwing flights to measure erosion after winter storms. The money paid for a new assembly hall in Carrow Bay. [R:7, R:9]",
    "### Tidewell Robotics and Qinglan Technology\n\nIn 2022 Qinglan Technology bought a fifteen percent stake in Tidewell Robotics, its first investment abroad. [R:13]",
    [
      "## References",
      "",
      "- [R:2] Tidewell Robotics — Gullwing",
      "- [R:18] Gullwing — live flight",
      "- [R:51] Tidewell Robotics — survey drone",
      "- [R:1] Halcyon — Gullwing",
      "- [R:5] Idris Vale — Tidewell Robotics",
      "- [R:4] Lumora Optics — Tidewell Robotics",
      "- [R:61] Gullwing — Tingchao",
      "- [R:7] coastal councils — Gullwing",
      "- [R:9] Carrow Bay — assembly hall",
      "- [R:13] Qinglan Technology — Tidewell Robotics",
    ].join("\n"),
  ].join("\n\n"),
};
