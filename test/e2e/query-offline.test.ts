import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { NOTHING_FOUND } from "../../src/query/answer/answer.js";
import { EXTRACTIVE_LABEL } from "../../src/query/answer/extractive-answer.js";
import { QUERY_MODES } from "../../src/query/options.js";

/** A small bilingual corpus with a two-hop chain in each language. */
const DOCS: Record<string, string> = {
  "lumen.md": `# Lumen Robotics

Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. The company builds warehouse robots
and sells them to logistics firms across Europe.`,
  "okafor.md": `# Mara Okafor

Mara Okafor was born in Ibadan, Nigeria, in 1984. She studied mechanical engineering at the
University of Porto and later taught robotics there for three years.`,
  "weather.txt":
    "Lisbon has mild winters and warm, dry summers. Rain falls mostly between October and April.",
  "qingshi.md": `# 青石科技

青石科技由李明于2016年在杭州创立。公司主要研发物流机器人，客户包括多家快递公司。`,
  "corvane.md": `# Corvane Shipping

Corvane Shipping is a ferry operator based in Halden. It was founded in 1987 by Tomas Arkwright.
The company runs six ferries across the Skagerrak.`,
  "liming.md": `# 李明

李明出生于江西南昌，毕业于浙江大学机械工程系，此前在阿里巴巴担任工程师。`,
};

describe("querying an offline index end to end", () => {
  let root: string;
  let kgrag: Kgrag;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-query-e2e-"));
    for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(root, name), text);
    kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    const summary = await kgrag.index([root]);
    expect(summary.failures).toEqual([]);
  });

  afterAll(async () => {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  });

  const passagesOf = (result: Awaited<ReturnType<Kgrag["query"]>>) => result.references.map((r) => r.title);

  it("answers a whole-corpus question in global mode from the community reports", async () => {
    const communities = await kgrag.services.store.listCommunities();
    expect(communities.length).toBeGreaterThan(0);
    const result = await kgrag.query("What are the main themes?", { mode: "global" });
    expect(result.context.communities.length).toBeGreaterThan(0);
    const ids = new Set(communities.map((c) => c.id));
    for (const c of result.context.communities) expect(ids.has(c.id)).toBe(true);
    expect(result.answer).toContain("From the community reports");
    expect(result.answer).toContain(`[C:${result.context.communities[0]?.id}]`);
  });

  it("answers in all five modes with labelled extractive answers citing numbered passages", async () => {
    for (const mode of QUERY_MODES) {
      const result = await kgrag.query("Who founded Lumen Robotics?", { mode });
      expect(result.mode).toBe(mode);
      expect(result.usage.llmCalls).toBe(0);
      expect(result.references.length).toBeGreaterThan(0);
      expect(result.answer.startsWith(EXTRACTIVE_LABEL)).toBe(true);
      const cited = [...result.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(cited.length).toBeGreaterThan(0);
      for (const n of cited) expect(result.references.some((r) => r.n === n)).toBe(true);
    }
  });

  it("follows the graph to the second hop: the founder's own passage, which the question does not name", async () => {
    for (const mode of ["local", "hybrid", "mix"] as const) {
      const result = await kgrag.query("Where was the founder of Lumen Robotics born?", {
        mode,
        contextOnly: true,
      });
      expect(passagesOf(result)).toContain("Mara Okafor");
    }
  });

  it("does the same for a Chinese question", async () => {
    const result = await kgrag.query("青石科技的创始人出生在哪里？", { mode: "mix" });
    expect(passagesOf(result)).toEqual(expect.arrayContaining(["青石科技", "李明"]));
    expect(result.answer).toContain("南昌");
  });

  it("answers the two-hop question from the founder's passage in every graph mode", async () => {
    for (const mode of ["local", "global", "hybrid", "mix"] as const) {
      const result = await kgrag.query("Where was the founder of Lumen Robotics born?", { mode });
      expect(result.answer, mode).toContain("Ibadan");
    }
  });

  it("answers who founded a company from the sentence naming it only by a pronoun, in every mode", async () => {
    for (const mode of QUERY_MODES) {
      const result = await kgrag.query("Who founded Corvane Shipping?", { mode });
      const quoted = result.answer.split("\n")[1] ?? "";
      expect(quoted, mode).toMatch(/^It was founded in 1987 by Tomas Arkwright\. \[\d+\]$/);
    }
  });

  it("answers a whole-corpus question in every mode, local included, and from the reports first", async () => {
    for (const mode of QUERY_MODES) {
      const result = await kgrag.query("What are the main themes?", { mode });
      expect(result.answer, mode).not.toBe(NOTHING_FOUND);
      if (mode === "mix" || mode === "hybrid" || mode === "global")
        expect(result.answer, mode).toMatch(/^From the community reports/);
    }
  });

  it("keeps references at passage level: spans point into the document text", async () => {
    const result = await kgrag.query("Where was Mara Okafor born?", { mode: "naive", contextOnly: true });
    const top = result.references[0];
    const chunk = result.context.chunks[0];
    expect(top?.title).toBe("Mara Okafor");
    expect(top?.chunkId).toBe(chunk?.id);
    expect((top?.end ?? 0) - (top?.start ?? 0)).toBeGreaterThan(0);
    expect(chunk?.text).toContain("Ibadan");
  });
});
