import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatModel } from "../../src/llm/chat-model.js";
import { NOTHING_FOUND } from "../../src/query/answer/answer.js";
import { QUERY_MODES } from "../../src/query/options.js";
import { runQuery } from "../../src/query/query-engine.js";
import {
  buildFixture,
  DIRECTOR,
  FILM,
  type Fixture,
  MULTI_HOP,
  MULTI_HOP_KEYWORDS,
  StageChat,
  TOWN,
} from "./query-fixture.js";

/** The result JSON exactly as issue 3 specifies it; strict, so an extra or missing field fails. */
const ResultSchema = z.strictObject({
  id: z.string().optional(),
  mode: z.enum(QUERY_MODES),
  answer: z.string(),
  keywords: z.strictObject({ high: z.array(z.string()), low: z.array(z.string()) }),
  context: z.strictObject({
    entities: z.array(
      z.strictObject({ name: z.string(), type: z.string(), description: z.string(), score: z.number() }),
    ),
    relationships: z.array(
      z.strictObject({
        source: z.string(),
        target: z.string(),
        description: z.string(),
        keywords: z.array(z.string()),
        weight: z.number(),
        score: z.number(),
      }),
    ),
    chunks: z.array(
      z.strictObject({ id: z.string(), docId: z.string(), text: z.string(), score: z.number() }),
    ),
    communities: z.array(
      z.strictObject({ id: z.string(), level: z.number(), title: z.string(), summary: z.string() }),
    ),
  }),
  references: z.array(
    z.strictObject({
      n: z.number().int(),
      docId: z.string(),
      title: z.string(),
      chunkId: z.string(),
      start: z.number().int(),
      end: z.number().int(),
    }),
  ),
  usage: z.strictObject({
    llmCalls: z.number().int(),
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    cost: z.number(),
  }),
  timings: z.strictObject({ retrievalMs: z.number(), totalMs: z.number() }),
  warnings: z.array(z.string()).optional(),
});

const QUESTION = "Where does the director of the film Big Stone Gap live?";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function scriptedChat(): StageChat {
  return new StageChat({
    keywords: () => MULTI_HOP_KEYWORDS,
    answer: () => "She lives in Greenwich Village [2].",
  });
}

describe("runQuery result", () => {
  it("has the documented shape in every mode, with numbered passage references", async () => {
    const chat = scriptedChat();
    fixture = await buildFixture(MULTI_HOP, { chat });
    for (const mode of QUERY_MODES) {
      // Threshold 0: the hashing embedder rates the theme keywords low against this tiny graph, and
      // this test is about the shape of what every mode returns, not about what it finds.
      const options = { mode, id: `q-${mode}`, similarityThreshold: 0 };
      const result = ResultSchema.parse(await runQuery(fixture.services, QUESTION, options));
      expect(result.id).toBe(`q-${mode}`);
      expect(result.mode).toBe(mode);
      expect(result.answer).toBe("She lives in Greenwich Village [2].");
      expect(result.context.chunks.length).toBeGreaterThan(0);
      expect(result.references.map((r) => r.n)).toEqual(result.context.chunks.map((_, i) => i + 1));
      result.references.forEach((ref, i) => {
        const chunk = fixture?.chunks.find((c) => c.id === ref.chunkId);
        expect(ref.chunkId).toBe(result.context.chunks[i]?.id);
        expect([ref.docId, ref.start, ref.end]).toEqual([chunk?.docId, chunk?.start, chunk?.end]);
        expect(ref.title).toBe(`Title of ${ref.docId}`);
      });
      // naive needs no keywords, so it spends one call (the answer) instead of two.
      expect(result.usage).toEqual(
        mode === "naive"
          ? { llmCalls: 1, promptTokens: 10, completionTokens: 5, cost: 0 }
          : { llmCalls: 2, promptTokens: 20, completionTokens: 10, cost: 0 },
      );
      if (mode !== "naive")
        expect(result.keywords).toEqual({ high: ["film director", "residence"], low: ["Big Stone Gap"] });
    }
  });

  it("asks the model for [n] citations over the numbered passages, with history and response type", async () => {
    const chat = scriptedChat();
    fixture = await buildFixture(MULTI_HOP, { chat });
    const result = await runQuery(fixture.services, QUESTION, {
      mode: "local",
      responseType: "one sentence",
      history: [{ role: "user", content: "Tell me about Appalachian films." }],
    });
    const answerCall = chat.requests.find((r) => r.stage === "answer");
    const system = answerCall?.messages[0]?.content ?? "";
    expect(system).toContain("[1]");
    expect(system).toContain("one sentence");
    expect(system).toContain("Tell me about Appalachian films.");
    const first = result.references[0];
    expect(system).toContain(`[1] ${first?.title}\n${result.context.chunks[0]?.text}`);
    expect(answerCall?.messages.at(-1)).toEqual({ role: "user", content: QUESTION });
  });

  it("stops at its signal: the model call under way gets it, and the query rejects with its reason", async () => {
    const stop = new AbortController();
    const chat = new StageChat({
      keywords: () => MULTI_HOP_KEYWORDS,
      // The answer call waits for the signal it was given, as a model endpoint's request would.
      answer: (request) =>
        new Promise<string>((_resolve, reject) => {
          request.signal?.addEventListener("abort", () => reject(request.signal?.reason));
          stop.abort(new Error("caller left"));
        }),
    });
    fixture = await buildFixture(MULTI_HOP, { chat });
    await expect(
      runQuery(fixture.services, QUESTION, { mode: "local", signal: stop.signal }),
    ).rejects.toThrow("caller left");
    // Aborted before it starts, it calls no model at all.
    const before = chat.requests.length;
    await expect(
      runQuery(fixture.services, QUESTION, { mode: "local", signal: stop.signal }),
    ).rejects.toThrow("caller left");
    expect(chat.requests.length).toBe(before);
  });

  it("refuses a JSON answer offline before retrieving anything, and returns the model's JSON as written", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    await expect(runQuery(fixture.services, QUESTION, { structuredOutput: {} })).rejects.toThrow(
      /A JSON answer .* needs a chat model/,
    );
    await fixture.close();
    // A citation the context does not hold stays: the JSON is the model's, not cleaned.
    const written = '{"town": "Greenwich Village [9]"}';
    const chat = new StageChat({ keywords: () => MULTI_HOP_KEYWORDS, answer: () => written });
    fixture = await buildFixture(MULTI_HOP, { chat });
    const schema = { type: "object", properties: { town: { type: "string" } } };
    const result = await runQuery(fixture.services, QUESTION, {
      mode: "naive",
      structuredOutput: { schema },
    });
    expect(result.answer).toBe(written);
    expect(result.warnings ?? []).toEqual([]);
    const answerCall = chat.requests.find((r) => r.stage === "answer");
    expect(answerCall?.jsonSchema).toEqual({ name: "answer", schema });
  });

  it("streams the answer through onToken", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: scriptedChat() });
    const deltas: string[] = [];
    await runQuery(fixture.services, QUESTION, { mode: "naive", onToken: (d) => deltas.push(d) });
    expect(deltas.join("")).toBe("She lives in Greenwich Village [2].");
  });

  it("warns of an answer cut off at the output limit, or empty, streamed or not", async () => {
    let reply = "She lives in Greenwich";
    const chat = new StageChat({ keywords: () => MULTI_HOP_KEYWORDS, answer: () => reply });
    const cutChat: ChatModel = {
      model: chat.model,
      async chat(request) {
        const response = await chat.chat(request);
        return request.stage === "answer" ? { ...response, truncated: reply !== "" } : response;
      },
    };
    fixture = await buildFixture(MULTI_HOP, { chat: cutChat });
    for (const onToken of [undefined, () => {}]) {
      reply = "She lives in Greenwich";
      const cut = await runQuery(fixture.services, QUESTION, { mode: "naive", onToken });
      expect(cut.answer).toBe("She lives in Greenwich");
      expect(cut.warnings).toEqual([expect.stringContaining("cut off at the model's output limit")]);
      reply = "";
      const empty = await runQuery(fixture.services, `${QUESTION} `, { mode: "naive", onToken });
      expect(empty.warnings).toEqual([expect.stringContaining("the model sent an empty answer")]);
    }
  });

  it("warns of citations to sources the answer was not given, streamed or not, and removes them", async () => {
    const chat = new StageChat({
      keywords: () => MULTI_HOP_KEYWORDS,
      answer: () => "She lives in Greenwich Village [2, 42]. It is in Manhattan [C:c9-9] [57].",
    });
    fixture = await buildFixture(MULTI_HOP, { chat });
    const deltas: string[] = [];
    const streamed = await runQuery(fixture.services, QUESTION, {
      mode: "naive",
      onToken: (d) => deltas.push(d),
    });
    const whole = await runQuery(fixture.services, QUESTION, { mode: "naive" });
    const expected = [
      "the answer cited [42], [57], which are not among the sources; removed",
      "the answer cited [C:c9-9], a community report that is not among the sources; removed",
    ];
    for (const result of [streamed, whole]) {
      expect(result.answer).toBe("She lives in Greenwich Village [2]. It is in Manhattan.");
      expect(result.warnings).toEqual(expected);
    }
    expect(deltas.join("")).toBe(streamed.answer);
  });

  it("adds no warning when every citation is among the sources", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: scriptedChat() });
    const result = await runQuery(fixture.services, QUESTION, { mode: "naive" });
    expect(result.warnings).toBeUndefined();
  });

  it("hands an answer written at once to onToken as one token, after onContext: offline, or nothing found", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: null });
    const heard: string[] = [];
    const listen = { onContext: () => heard.push("(context)"), onToken: (t: string) => heard.push(t) };
    const offline = await runQuery(fixture.services, QUESTION, { mode: "naive", ...listen });
    expect(offline.answer).toMatch(/^Extractive answer/);
    expect(heard).toEqual(["(context)", offline.answer]);
    heard.length = 0;
    const nothing = await runQuery(fixture.services, "zzyzx qwerty", { mode: "naive", ...listen });
    expect(nothing.answer).toBe(NOTHING_FOUND);
    expect(heard).toEqual(["(context)", NOTHING_FOUND]);
    heard.length = 0;
    await runQuery(fixture.services, QUESTION, { mode: "naive", contextOnly: true, ...listen });
    expect(heard).toEqual(["(context)"]);
  });

  it("hands the answer of a model that does not stream to onToken once, whole", async () => {
    const chat = scriptedChat();
    // A chat model of the caller's own that ignores onToken and answers at once.
    const whole: ChatModel = { ...chat, chat: (request) => chat.chat({ ...request, onToken: undefined }) };
    fixture = await buildFixture(MULTI_HOP, { chat: whole });
    const deltas: string[] = [];
    await runQuery(fixture.services, QUESTION, { mode: "naive", onToken: (d) => deltas.push(d) });
    expect(deltas).toEqual(["She lives in Greenwich Village [2]."]);
  });

  it("with contextOnly returns the context and calls no model for an answer", async () => {
    const chat = scriptedChat();
    fixture = await buildFixture(MULTI_HOP, { chat });
    const result = await runQuery(fixture.services, QUESTION, { mode: "hybrid", contextOnly: true });
    expect(result.answer).toBe("");
    expect(result.context.chunks.length).toBeGreaterThan(0);
    expect(chat.calls("answer")).toBe(0);
  });

  it("rejects an empty question and unknown options clearly", async () => {
    fixture = await buildFixture(MULTI_HOP);
    await expect(runQuery(fixture.services, "  ")).rejects.toThrow(/question is empty/);
    await expect(runQuery(fixture.services, QUESTION, { topK: 0 })).rejects.toThrow(/Invalid query options/);
  });
});

describe("graph expansion", () => {
  const chunkIds = async (graphRanking: "ppr" | "degree") => {
    const result = await runQuery(fixture!.services, QUESTION, {
      mode: "local",
      contextOnly: true,
      graphRanking,
    });
    return result.context.chunks.map((c) => c.id);
  };

  it("reaches the passage of an entity the question never names (the second hop) with PageRank", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: scriptedChat() });
    const ids = await chunkIds("ppr");
    expect(ids).toContain(fixture.chunkOf(DIRECTOR).id);
    expect(ids.indexOf(fixture.chunkOf(FILM).id)).toBeLessThan(ids.indexOf(fixture.chunkOf(DIRECTOR).id));
    // Nothing connects the distractors to Big Stone Gap, so none is retrieved.
    expect(ids.sort()).toEqual(
      [fixture.chunkOf(FILM).id, fixture.chunkOf(DIRECTOR).id, fixture.chunkOf(TOWN).id].sort(),
    );
  });

  it("does not reach it with the one-hop degree ranking (the baseline PageRank is measured against)", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: scriptedChat() });
    const ids = await chunkIds("degree");
    expect(ids).toContain(fixture.chunkOf(FILM).id);
    expect(ids).not.toContain(fixture.chunkOf(DIRECTOR).id);
  });
});
