import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { QUERY_MODES } from "../../src/query/options.js";
import {
  type ChatCall,
  lastUserMessage,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

const DOCS: Record<string, string> = {
  "lumen.md":
    "# Lumen Robotics\n\nLumen Robotics was founded by Mara Okafor in Lisbon in 2015. It builds warehouse robots.",
  "okafor.md":
    "# Mara Okafor\n\nMara Okafor was born in Ibadan, Nigeria, in 1984. She studied engineering in Porto.",
  "qingshi.md": "# 青石科技\n\n青石科技由李明于2016年在杭州创立。公司主要研发物流机器人。",
};

const ANSWER = "Mara Okafor, who founded Lumen Robotics [1], was born in Ibadan [2].";
/** Asked with "cite freely": an answer citing passages the context does not have. */
const OVER_CITED = "Mara Okafor was born in Ibadan [2]. Invented citation [42]. Both [1, 42].";

/** The map step cites the first report id it was shown, as a model following the prompt would. */
function mapPoints(call: ChatCall) {
  const reports = lastUserMessage(call).split("-----Reports-----")[1] ?? "";
  const cite = /C:([A-Za-z0-9-]+)/.exec(reports)?.[1] ?? "none";
  return {
    content: JSON.stringify({
      points: [{ description: `Lumen Robotics makes robots [C:${cite}]`, score: 80 }],
    }),
  };
}

describe("querying through an OpenAI-compatible server (scripted)", () => {
  let root: string;
  let server: ScriptedServer;
  let kgrag: Kgrag;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-query-llm-"));
    for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(root, name), text);
    const workspace = join(root, "ws");
    // Indexed offline; the model is only needed for the query stages under test.
    const indexer = await createKgrag({ env: {}, config: { workspace } });
    await indexer.index([root]);
    await indexer.close();

    server = await startScriptedOpenAI({
      chat: scriptByStage({
        keywords: {
          content:
            '```json\n{"high_level_keywords": ["founded", "born"], "low_level_keywords": ["Lumen Robotics"]}\n```',
        },
        answer: (call) => ({ content: lastUserMessage(call).includes("cite freely") ? OVER_CITED : ANSWER }),
        "global-map": mapPoints,
        "global-reduce": { content: "The reports describe a robotics company [C:x]." },
      }),
    });
    kgrag = await createKgrag({
      env: { KGRAG_LLM_MODEL: "scripted", KGRAG_LLM_BASE_URL: server.baseURL, KGRAG_LLM_API_KEY: "test" },
      config: { workspace },
    });
  });

  afterAll(async () => {
    await kgrag.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const answerPrompts = () =>
    server.requests
      .filter((r) => r.stage === "answer")
      .map((r) => JSON.stringify((r.body as { messages?: unknown }).messages));

  it("answers in all five modes: keywords and answer stages, [n] citations over numbered passages", async () => {
    expect(kgrag.mode).toBe("llm");
    for (const mode of QUERY_MODES) {
      const result = await kgrag.query("Where was the founder of Lumen Robotics born?", { mode });
      expect(result.answer).toBe(ANSWER);
      expect(result.references.length).toBeGreaterThan(0);
      if (mode !== "naive")
        expect(result.keywords).toEqual({ high: ["founded", "born"], low: ["Lumen Robotics"] });
    }
    // The keywords are asked once, then served from the workspace LLM cache (as is an answer
    // whose prompt repeats, e.g. when two modes build the same context).
    expect(server.count("keywords")).toBe(1);
    expect(server.count("answer")).toBeGreaterThanOrEqual(3);
    for (const prompt of answerPrompts()) expect(prompt).toMatch(/\[1\] [^\n]+\\n/);
  });

  it("reaches the founder's passage through the graph and cites it", async () => {
    const result = await kgrag.query("Where was the founder of Lumen Robotics born?", {
      mode: "local",
      contextOnly: true,
    });
    expect(result.references.map((r) => r.title)).toContain("Mara Okafor");
  });

  it("global mode adds the community reports and the model's analysis of them", async () => {
    const before = server.countByStage();
    const result = await kgrag.query("What are the main themes?", { mode: "global" });
    expect(server.count("global-map")).toBeGreaterThan(before["global-map"] ?? 0);
    expect(server.count("global-reduce")).toBe((before["global-reduce"] ?? 0) + 1);
    expect(result.context.communities.length).toBeGreaterThan(0);
    expect(answerPrompts().at(-1)).toContain("Analysis of the community reports");
  });

  it("streams the answer and counts this query's usage", async () => {
    const deltas: string[] = [];
    const result = await kgrag.query("Who was born in Ibadan?", {
      mode: "naive",
      onToken: (d) => deltas.push(d),
    });
    expect(deltas.join("")).toBe(ANSWER);
    expect(result.usage.llmCalls).toBe(1);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  it("drops citations of passages the context does not have, streamed and returned alike", async () => {
    const deltas: string[] = [];
    const result = await kgrag.query("Where was Mara Okafor born? (cite freely)", {
      mode: "naive",
      onToken: (d) => deltas.push(d),
    });
    expect(result.references.map((r) => r.n)).toContain(2);
    expect(result.references.map((r) => r.n)).not.toContain(42);
    expect(result.answer).toBe("Mara Okafor was born in Ibadan [2]. Invented citation. Both [1].");
    expect(deltas.join("")).toBe(result.answer);
  });

  it("with contextOnly makes no answer or report calls", async () => {
    const before = server.countByStage();
    const result = await kgrag.query("青石科技是谁创立的？", { mode: "hybrid", contextOnly: true });
    expect(result.answer).toBe("");
    const after = server.countByStage();
    expect(after.answer).toBe(before.answer);
    expect(after["global-map"]).toBe(before["global-map"]);
  });
});
