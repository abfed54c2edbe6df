import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { UsageTracker } from "../../src/llm/usage.js";
import { entityKey } from "../../src/merge/keys.js";
import { extractKeywords, offlineKeywords, parseKeywordsReply } from "../../src/query/keywords.js";
import { hanSpanKeys } from "../../src/query/question-entity-names.js";
import type { KgragServices } from "../../src/services.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { silentProgress } from "../../src/util/progress.js";
import { StageChat } from "./query-fixture.js";

/** A store holding only entity labels: offline keywords look up the names a Chinese question spells out. */
function labelStore(names: string[], lookups: string[][] = []): GraphStore {
  const labels = new Map(
    names.map((name) => [entityKey(name), { key: entityKey(name), name, type: "organization" }]),
  );
  return {
    entityLabels: async (keys: string[]) => {
      lookups.push(keys);
      return keys.flatMap((key) => labels.get(key) ?? []);
    },
  } as unknown as GraphStore;
}

function services(
  chat: StageChat | null,
  offlineKeywordCache?: number,
  store = labelStore([]),
): KgragServices {
  return {
    config: ConfigSchema.parse({ query: { offlineKeywordCache } }),
    store,
    embedder: new HashingEmbedder(32),
    chat,
    usage: new UsageTracker(),
    progress: silentProgress,
  };
}

describe("parsing the model's keywords", () => {
  it("reads plain JSON", () => {
    expect(
      parseKeywordsReply('{"high_level_keywords":["film"],"low_level_keywords":["Big Stone Gap"]}'),
    ).toEqual({
      high: ["film"],
      low: ["Big Stone Gap"],
    });
  });

  it("survives code fences, chatter, trailing commas and a comma-separated string", () => {
    const reply =
      'Sure!\n```json\n{"high_level_keywords": "film, direction", "low_level_keywords": ["Big Stone Gap",],}\n```';
    expect(parseKeywordsReply(reply)).toEqual({ high: ["film", "direction"], low: ["Big Stone Gap"] });
  });

  it("drops blanks and case-insensitive duplicates, and treats a missing list as empty", () => {
    expect(parseKeywordsReply('{"low_level_keywords":["Paris"," paris ",""]}')).toEqual({
      high: [],
      low: ["Paris"],
    });
  });

  it("gives up on a reply with no JSON object", () => {
    expect(parseKeywordsReply("I cannot help with that.")).toBeNull();
  });
});

describe("query keywords", () => {
  it("come from the model (stage keywords, JSON schema requested) when one is configured", async () => {
    const chat = new StageChat({
      keywords: () => '{"high_level_keywords":["x"],"low_level_keywords":["Y"]}',
    });
    expect(await extractKeywords(services(chat), "What about Y?")).toEqual({ high: ["x"], low: ["Y"] });
    expect(chat.requests[0]?.stage).toBe("keywords");
    expect(chat.requests[0]?.jsonSchema?.name).toBe("query_keywords");
    expect(chat.requests[0]?.messages[0]?.content).toContain("What about Y?");
  });

  it("fall back to the offline keywords when the reply is unreadable", async () => {
    const chat = new StageChat({ keywords: () => "no idea" });
    const keywords = await extractKeywords(services(chat), "Who directed the film Big Stone Gap?");
    expect(keywords.low).toContain("Big Stone Gap");
  });

  it("are the question itself when the model finds none", async () => {
    const chat = new StageChat({ keywords: () => '{"high_level_keywords":[],"low_level_keywords":[]}' });
    expect(await extractKeywords(services(chat), "Why?")).toEqual({ high: ["Why?"], low: ["Why?"] });
  });

  it("offline: names as low-level and theme words as high-level, in English and Chinese", async () => {
    const en = await extractKeywords(services(null), "Which company did Steve Jobs found in California?");
    expect(en.low).toEqual(expect.arrayContaining(["Steve Jobs", "California"]));
    expect(en.high.length).toBeGreaterThan(0);
    const zh = await extractKeywords(services(null), "鲁迅在北京写了哪些小说？");
    expect(zh.low.join(" ")).toMatch(/鲁迅|北京/);
  });

  it("offline: an entity name of the workspace in a Chinese question stays one keyword", async () => {
    const question = "蓝鲸互动是谁创立的？";
    // jieba alone cuts the company into two common words (a trade word after a coined one would be
    // kept whole: 青岚科技; 互动 is none).
    expect(offlineKeywords(question).low).not.toContain("蓝鲸互动");
    for (const cacheSize of [0, 1000]) {
      const lookups: string[][] = [];
      const store = labelStore(["蓝鲸互动", "王小明"], lookups);
      const keywords = await extractKeywords(services(null, cacheSize, store), question);
      expect(keywords.low).toEqual(["蓝鲸互动"]);
      expect(keywords.high).not.toContain("互动");
      // One store read per question, with the question's spans as keys.
      expect(lookups).toHaveLength(1);
      expect(lookups[0]).toContain(entityKey("蓝鲸互动"));
      // The same question on a workspace without that entity is not served the remembered keywords.
      const elsewhere = await extractKeywords(services(null, cacheSize, labelStore([])), question);
      expect(elsewhere.low).not.toContain("蓝鲸互动");
    }
  });

  it("offline: an English question reads no entity names from the store", async () => {
    const lookups: string[][] = [];
    await extractKeywords(services(null, 0, labelStore(["Apple"], lookups)), "Who founded Apple?");
    expect(lookups).toEqual([]);
  });

  it("a question's Han spans are bounded in length and number", () => {
    expect(hanSpanKeys("青岚科技?", { maxChars: 12, maxCandidates: 100 })).toEqual([
      "青岚",
      "青岚科",
      "青岚科技",
      "岚科",
      "岚科技",
      "科技",
    ]);
    expect(hanSpanKeys("青岚科技", { maxChars: 2, maxCandidates: 100 })).toEqual(["青岚", "岚科", "科技"]);
    expect(hanSpanKeys("青岚科技", { maxChars: 12, maxCandidates: 2 })).toHaveLength(2);
  });

  it("offline: a remembered question gets the same keywords, as copies, and 0 remembers none", async () => {
    const question = "Which studio released the film Big Stone Gap in 2014?";
    const fresh = offlineKeywords(question);
    for (const cacheSize of [0, 1, 1000]) {
      const first = await extractKeywords(services(null, cacheSize), question);
      first.low.push("tampered");
      first.high.length = 0;
      expect(await extractKeywords(services(null, cacheSize), question)).toEqual(fresh);
      // A full cache is emptied, not stuck: another question still gets its own keywords.
      expect(await extractKeywords(services(null, cacheSize), "Who founded Apple?")).toEqual(
        offlineKeywords("Who founded Apple?"),
      );
    }
  });
});
