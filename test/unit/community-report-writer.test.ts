import { describe, expect, it } from "vitest";
import { UnreadableReplyError } from "../../src/community/chat-json.js";
import { ExtractiveReportWriter } from "../../src/community/extractive-report-writer.js";
import { GraphIndex } from "../../src/community/graph-index.js";
import { LlmReportWriter } from "../../src/community/llm-report-writer.js";
import { buildReportContext } from "../../src/community/report-context.js";
import { DeferredExtractiveWriter } from "../../src/community/report-writer.js";
import { ScriptedChat } from "../support/community-chat.js";
import { entity, relationship } from "../support/community-fake-store.js";

function context() {
  const entities = [
    entity("scrooge", "A miser who learns generosity."),
    entity("marley", "Scrooge's dead partner.<SEP>A ghost in chains."),
    entity("cratchit", "Scrooge's clerk."),
    entity("tim", "Cratchit's son."),
  ];
  const relationships = [
    relationship("scrooge", "marley", 9, "Marley warns Scrooge of his fate. He comes at night."),
    relationship("scrooge", "cratchit", 4, "Cratchit works for Scrooge."),
    relationship("cratchit", "tim", 6, "Tim is Cratchit's youngest son."),
    relationship("scrooge", "tim", 2, "Scrooge comes to care for Tim."),
  ];
  return buildReportContext({
    community: { id: "c0-abc", level: 0, entityKeys: entities.map((e) => e.key) },
    index: new GraphIndex(entities, relationships),
    childReports: [],
    budget: 4000,
  });
}

const goodReply = [
  "Here is the report:",
  "```json",
  '{"title": "Scrooge and his circle", "summary": "Scrooge is at the centre [E:1, R:1].", "rating": "8",',
  ' "rating_explanation": "Main characters.", "findings": [{"summary": "Marley warns", "explanation": "See [R:1]."},',
  ' "Tim is frail [E:4]",]}',
  "```",
].join("\n");

describe("ExtractiveReportWriter", () => {
  it("titles the report after the most connected entities and quotes the strongest relationships", async () => {
    const report = await new ExtractiveReportWriter().write(context());
    expect(report.method).toBe("extractive");
    expect(report.title).toBe("SCROOGE, CRATCHIT and TIM");
    expect(report.summary).toContain("Marley warns Scrooge of his fate.");
    expect(report.summary).not.toContain("He comes at night");
    expect(report.findings[0]).toEqual({
      summary: "MARLEY and SCROOGE",
      explanation: expect.stringMatching(/^Marley warns Scrooge.*\[R:\d+\]$/),
    });
    expect(report.rating).toBeGreaterThanOrEqual(0);
    expect(report.rating).toBeLessThanOrEqual(10);
    expect(report.markdown).toContain("Extractive report (offline");
    expect(report.markdown).toMatch(
      /## References[\s\S]*\[R:\d+\] MARLEY — SCROOGE|\[R:\d+\] SCROOGE — MARLEY/,
    );
  });
  it("quotes a sentence shared by several co-occurrence edges once, citing all of them", async () => {
    const sentence = "Alice, Bob and Carol founded the guild in 1820.";
    const entities = [entity("alice"), entity("bob"), entity("carol")];
    const relationships = [
      relationship("alice", "bob", 3, sentence),
      relationship("alice", "carol", 3, sentence),
      relationship("bob", "carol", 3, sentence),
    ];
    const ctx = buildReportContext({
      community: { id: "c0-g", level: 0, entityKeys: ["alice", "bob", "carol"] },
      index: new GraphIndex(entities, relationships),
      childReports: [],
      budget: 2000,
    });
    const report = await new ExtractiveReportWriter().write(ctx);
    expect(report.summary.split(sentence)).toHaveLength(2);
    expect(report.summary).toContain(`${sentence} [R:1, R:2, R:3]`);
    expect(report.findings).toHaveLength(1);
    expect(report.summary).toMatch(/^A community of 3 entities centred on /);
  });

  it("counts a one-entity community in the singular", async () => {
    const ctx = buildReportContext({
      community: { id: "c0-one", level: 0, entityKeys: ["alice"] },
      index: new GraphIndex([entity("alice")], []),
      childReports: [],
      budget: 2000,
    });
    const report = await new ExtractiveReportWriter().write(ctx);
    expect(report.summary).toBe("A community of 1 entity centred on ALICE.");
    expect(report.ratingExplanation).toContain("(1 entity)");
  });
});

describe("ExtractiveReportWriter on Chinese text", () => {
  /** The trial's graph: 青岚科技, its founder and its product, described in Chinese. */
  function chineseContext() {
    const entities = [
      entity("青岚科技", "青岚科技是一家位于杭州的人工智能公司，由王小明于2015年创立。"),
      entity("王小明", "王小明出生于1985年，毕业于清华大学计算机系。"),
      entity("青岚助手", "公司的主要产品是智能客服系统“青岚助手”。"),
      entity("杭州", "Hangzhou, a city in Zhejiang."),
    ];
    const relationships = [
      relationship("青岚科技", "王小明", 9, "青岚科技是一家位于杭州的人工智能公司，由王小明于2015年创立。"),
      relationship("青岚科技", "青岚助手", 6, "公司的主要产品是智能客服系统“青岚助手”。"),
      relationship("青岚科技", "杭州", 3, ""),
    ];
    return buildReportContext({
      community: { id: "c0-zh", level: 0, entityKeys: entities.map((e) => e.key) },
      index: new GraphIndex(entities, relationships),
      childReports: [],
      budget: 4000,
    });
  }

  it("writes its fixed phrases in Chinese around the quoted sentences", async () => {
    const report = await new ExtractiveReportWriter().write(chineseContext());
    // The three most connected, most connected first.
    expect(report.title).toMatch(/^青岚科技、(王小明|杭州|青岚助手)和(王小明|杭州|青岚助手)$/);
    expect(report.summary.startsWith(`由 4 个实体组成的社区，以${report.title}为中心。`)).toBe(true);
    expect(report.summary).toContain("由王小明于2015年创立。 [R:");
    expect(report.ratingExplanation).toContain("（4 个实体）");
    expect(report.findings.map((f) => f.summary)).toContain("王小明与青岚科技");
    expect(report.findings.some((f) => f.explanation.startsWith("相关。"))).toBe(true);
    expect(report.markdown).toContain("_抽取式报告（离线生成，未使用 LLM）。_");
    expect(report.markdown).toContain("**评分：**");
    expect(report.markdown).toContain("## 要点");
    // No English template words are left.
    expect(`${report.title} ${report.summary} ${report.ratingExplanation}`).not.toMatch(/[A-Za-z]{3,}/);
    // The references list keeps the heading the query side reads its labels by.
    expect(report.markdown).toMatch(/## References\n\n- \[R:\d+\] /);
  });

  it("stays in English for an English community", async () => {
    const report = await new ExtractiveReportWriter().write(context());
    expect(report.summary).toMatch(/^A community of 4 entities centred on /);
    expect(report.markdown).toContain("**Rating:**");
  });
});

describe("ExtractiveReportWriter and sentences opening with a pronoun", () => {
  function contextOf(relationships: ReturnType<typeof relationship>[], keys: string[]) {
    return buildReportContext({
      community: { id: "c0-p", level: 0, entityKeys: keys },
      index: new GraphIndex(
        keys.map((key) => entity(key)),
        relationships,
      ),
      childReports: [],
      budget: 4000,
    });
  }

  it("quotes a sentence naming the entity instead of one opening with a pronoun", async () => {
    const description = [
      "He founded the mill in 1843.",
      "It was the largest in the county.",
      "Gideon Vale built the mill at Ashford with his brother.",
    ].join("<SEP>");
    const report = await new ExtractiveReportWriter().write(
      contextOf(
        [relationship("gideon vale", "ashford mill", 5, description)],
        ["gideon vale", "ashford mill"],
      ),
    );
    expect(report.summary).toContain("Gideon Vale built the mill at Ashford with his brother. [R:1]");
    expect(report.summary).not.toMatch(/He founded|It was/);
    expect(report.findings[0]?.explanation).toBe(
      "Gideon Vale built the mill at Ashford with his brother. [R:1]",
    );
  });

  it("picks each edge's own sentence from a description that edges of different pairs share", async () => {
    // One description, read once per report: the choice among its sentences still depends on the pair.
    const description = [
      "He sailed in 1850.",
      "Ada Reyes hired Tomas Brand.",
      "Lena Ortiz lent Marco Diaz a ship.",
    ].join("<SEP>");
    const keys = ["ada reyes", "tomas brand", "lena ortiz", "marco diaz"];
    const report = await new ExtractiveReportWriter().write(
      contextOf(
        [
          relationship("ada reyes", "tomas brand", 5, description),
          relationship("lena ortiz", "marco diaz", 4, description),
        ],
        keys,
      ),
    );
    expect(report.summary).toContain("Ada Reyes hired Tomas Brand. [R:1]");
    expect(report.summary).toContain("Lena Ortiz lent Marco Diaz a ship. [R:2]");
    expect(report.summary).not.toContain("He sailed");
  });

  it("keeps a pronoun's sentence that follows the name it refers to, and one with nothing else to quote", async () => {
    const follows = "Gideon Vale owned the mill. He sold it in 1860.";
    const alone = "She wrote to him every week.";
    const report = await new ExtractiveReportWriter().write(
      contextOf(
        [relationship("gideon vale", "mill", 5, follows), relationship("ada", "gideon vale", 3, alone)],
        ["gideon vale", "mill", "ada"],
      ),
    );
    expect(report.findings.map((f) => f.explanation)).toEqual([`${follows} [R:1]`, `${alone} [R:2]`]);
    expect(report.summary).toContain(`${alone} [R:2]`);
  });

  it("does the same in Chinese: 他/它 sentences give way to one naming the entity", async () => {
    const description = ["他于2015年创立了公司。", "它总部位于杭州。王小明创立了青岚科技。"].join("<SEP>");
    const report = await new ExtractiveReportWriter().write(
      contextOf([relationship("王小明", "青岚科技", 5, description)], ["王小明", "青岚科技"]),
    );
    expect(report.summary).toContain("王小明创立了青岚科技。 [R:1]");
    expect(report.summary).not.toMatch(/他于|它总部/);
    expect(report.findings[0]?.explanation).toBe("王小明创立了青岚科技。 [R:1]");
  });
});

describe("LlmReportWriter", () => {
  it("asks stage 'report' for the JSON schema and repairs a sloppy reply", async () => {
    const chat = new ScriptedChat(() => goodReply);
    const ctx = context();
    const report = await new LlmReportWriter(chat).write(ctx);
    expect(chat.stages()).toEqual(["report"]);
    expect(chat.requests[0]?.jsonSchema?.name).toBe("community_report");
    expect(ScriptedChat.prompt(chat.requests[0]!)).toContain(ctx.text);
    expect(report).toMatchObject({
      method: "llm",
      title: "Scrooge and his circle",
      rating: 8,
      ratingExplanation: "Main characters.",
      findings: [
        { summary: "Marley warns", explanation: "See [R:1]." },
        { summary: "Tim is frail [E:4]", explanation: "" },
      ],
    });
    const e1 = ctx.entities.find((e) => e.id === "E:1")!.name;
    expect(report.markdown).toContain(`- [E:1] ${e1}`);
    expect(report.markdown).toContain("**Rating:** 8/10.");
  });

  it("clamps an out-of-range rating", async () => {
    const chat = new ScriptedChat(() => '{"title": "T", "summary": "S", "rating": 42, "findings": []}');
    expect((await new LlmReportWriter(chat).write(context())).rating).toBe(10);
  });

  it("asks again once with the error, then uses the reply", async () => {
    const chat = new ScriptedChat((_req, i) => (i === 0 ? "I cannot do JSON today." : goodReply));
    const report = await new LlmReportWriter(chat).write(context());
    expect(chat.requests).toHaveLength(2);
    expect(ScriptedChat.prompt(chat.requests[1]!)).toContain("could not be used");
    expect(report.title).toBe("Scrooge and his circle");
  });

  it("asks again when the JSON stops unclosed, and never lets the cache keep such a reply", async () => {
    const full =
      '{"title": "Scrooge and his circle", "summary": "Scrooge is at the centre.", "rating": 8, "findings": []}';
    const cut = full.slice(0, full.indexOf("centre"));
    const chat = new ScriptedChat((_req, i) => (i === 0 ? cut : full));
    const report = await new LlmReportWriter(chat).write(context());
    expect(chat.requests).toHaveLength(2);
    expect(ScriptedChat.prompt(chat.requests[1]!)).toContain("cut off");
    expect(report.summary).toBe("Scrooge is at the centre.");
    expect(chat.requests[0]?.acceptAnswer?.(cut)).toBe(false);
    expect(chat.requests[0]?.acceptAnswer?.(full)).toBe(true);
  });

  it("falls back to an extractive report, with a warning, when both replies are unreadable", async () => {
    const warnings: string[] = [];
    const chat = new ScriptedChat(() => '{"summary": "no title here"}');
    const writer = new LlmReportWriter(chat, {
      fallback: new ExtractiveReportWriter(),
      warn: (m) => warnings.push(m),
    });
    const report = await writer.write(context());
    expect(report.method).toBe("extractive");
    expect(warnings[0]).toContain("c0-abc");
    await expect(new LlmReportWriter(chat).write(context())).rejects.toBeInstanceOf(UnreadableReplyError);
  });

  it("falls back through the extractive writer loaded on demand, to the same report", async () => {
    const chat = new ScriptedChat(() => '{"summary": "no title here"}');
    const writer = new LlmReportWriter(chat, { fallback: new DeferredExtractiveWriter() });
    const report = await writer.write(context());
    expect(report).toEqual(await new ExtractiveReportWriter().write(context()));
    expect(report.method).toBe("extractive");
  });

  it("lets a failing endpoint stop the run instead of silently going offline", async () => {
    const chat = new ScriptedChat(() => new Error("connect ECONNREFUSED"));
    const writer = new LlmReportWriter(chat, { fallback: new ExtractiveReportWriter() });
    await expect(writer.write(context())).rejects.toThrow("ECONNREFUSED");
  });
});
