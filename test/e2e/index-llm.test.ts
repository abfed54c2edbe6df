import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import {
  type ChatCall,
  lastUserMessage,
  type ScriptedReply,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

/** What the scripted model "finds" in each document, recognised by a marker word in the chunk. */
const EXTRACTIONS: Record<string, object> = {
  ALPHA: {
    entities: [
      { name: "Mara Okafor", type: "person", description: "Founder of Lumen Robotics." },
      { name: "Lumen Robotics", type: "organization", description: "A robotics company in Lisbon." },
    ],
    relationships: [
      {
        source: "Mara Okafor",
        target: "Lumen Robotics",
        description: "Mara Okafor founded Lumen Robotics.",
        keywords: ["founding"],
        strength: 9,
      },
    ],
  },
  BETA: {
    entities: [
      { name: "LUMEN ROBOTICS", type: "organization", description: "Maker of warehouse robots." },
      { name: "Tomas Weber", type: "person", description: "Head of the Berlin lab." },
    ],
    relationships: [
      {
        source: "Tomas Weber",
        target: "Lumen Robotics",
        description: "Tomas Weber leads the Berlin lab of Lumen Robotics.",
        keywords: ["employment", "research"],
        strength: 6,
      },
    ],
  },
  GAMMA: {
    entities: [
      { name: "Mara Okafor", type: "person", description: "Studied engineering in Porto." },
      { name: "Lumen Robotics", type: "organization", description: "Run by Mara Okafor." },
    ],
    relationships: [
      {
        source: "Lumen Robotics",
        target: "Mara Okafor",
        description: "Mara Okafor is the chief executive of Lumen Robotics.",
        keywords: ["leadership"],
        strength: 7,
      },
    ],
  },
};

function extractReply(call: ChatCall): ScriptedReply {
  const text = (call.body.messages ?? []).map((m) => m.content).join("\n");
  const marker = Object.keys(EXTRACTIONS).find((m) => text.includes(`${m} `) || text.includes(`${m}.`));
  return { content: JSON.stringify(marker ? EXTRACTIONS[marker] : { entities: [], relationships: [] }) };
}

const EMPTY = { content: JSON.stringify({ entities: [], relationships: [] }) };

describe("LLM indexing against an OpenAI-compatible server", () => {
  let root: string;
  let server: ScriptedServer;
  const chatScript: Record<string, (call: ChatCall) => ScriptedReply> = {};

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-llm-"));
    writeFileSync(join(root, "a.txt"), "ALPHA Mara Okafor founded Lumen Robotics in Lisbon.");
    writeFileSync(
      join(root, "b.txt"),
      "BETA Lumen Robotics builds robots; Tomas Weber leads its Berlin lab.",
    );
    writeFileSync(join(root, "c.txt"), "GAMMA Mara Okafor studied in Porto and runs Lumen Robotics.");
    chatScript.extract = extractReply;
    chatScript.glean = () => EMPTY;
    chatScript.summarize = () => ({
      content: "Lumen Robotics is a Lisbon robotics company founded by Mara Okafor.",
    });
    chatScript.report = () => ({
      content: JSON.stringify({
        title: "Lumen Robotics",
        summary: "The company and its people.",
        rating: 5,
        rating_explanation: "Central.",
        findings: [{ summary: "Founding", explanation: "Mara Okafor founded it." }],
      }),
    });
    server = await startScriptedOpenAI({
      chat: scriptByStage({
        extract: (call) => chatScript.extract?.(call) ?? EMPTY,
        glean: (call) => chatScript.glean?.(call) ?? EMPTY,
        summarize: (call) => chatScript.summarize?.(call) ?? EMPTY,
        report: (call) => chatScript.report?.(call) ?? EMPTY,
      }),
    });
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const open = () =>
    createKgrag({
      env: {
        KGRAG_LLM_BASE_URL: server.baseURL,
        KGRAG_LLM_API_KEY: "test-key",
        KGRAG_LLM_MODEL: "scripted-chat",
        KGRAG_EMBEDDING_MODEL: "scripted-embed",
        KGRAG_EMBEDDING_DIM: "64",
      },
      config: { workspace: join(root, "ws"), merge: { summaryMinFragments: 3 } },
    });

  it("extracts, gleans, merges, summarises and embeds through the HTTP API", async () => {
    const kgrag = await open();
    try {
      const summary = await kgrag.index([root]);
      expect(summary.failures).toEqual([]);
      expect(server.count("extract")).toBe(3);
      expect(server.count("glean")).toBe(3);
      expect(server.count("embed")).toBeGreaterThan(0);
      expect(server.requests.every((r) => r.stage !== "")).toBe(true);

      const { store } = kgrag.services;
      const [lumen] = await store.getEntities([entityKey("Lumen Robotics")]);
      // Three chunks gave three fragments: the summary threshold (3) was reached.
      expect(lumen?.fragments).toHaveLength(3);
      expect(lumen?.description).toBe("Lumen Robotics is a Lisbon robotics company founded by Mara Okafor.");
      expect(lumen?.name).toBe("Lumen Robotics");
      expect(lumen?.sourceChunkIds).toHaveLength(3);

      const [edge] = await store.getRelationships([
        relationshipKey(entityKey("Mara Okafor"), entityKey("Lumen Robotics")),
      ]);
      expect(edge?.weight).toBe(16);
      expect(edge?.keywords.sort()).toEqual(["founding", "leadership"]);
      expect(edge?.description.split("<SEP>")).toHaveLength(2);
      expect(summary.llmCalls).toBeGreaterThanOrEqual(7);
      expect(summary.tokens).toBeGreaterThan(0);
    } finally {
      await kgrag.close();
    }
  });

  it("repeats no model call when the same documents are indexed again", async () => {
    const first = await open();
    await first.index([root]);
    await first.close();
    const before = server.requests.length;
    const second = await open();
    try {
      const summary = await second.index([root]);
      expect(summary.llmCalls).toBe(0);
      expect(server.requests.length).toBe(before);
    } finally {
      await second.close();
    }
  });

  it("keeps going past 429s and a malformed answer, then retries only the failed chunk", async () => {
    let rateLimited = 0;
    chatScript.extract = (call) => {
      const text = (call.body.messages ?? []).map((m) => m.content).join("\n");
      if (text.includes("BETA") && rateLimited < 2) {
        rateLimited += 1;
        return {
          status: 429,
          headers: { "retry-after-ms": "20" },
          body: { error: { message: "slow down" } },
        };
      }
      if (text.includes("GAMMA ")) return { content: "I could not find anything, sorry! {not json" };
      return extractReply(call);
    };
    const kgrag = await open();
    try {
      const summary = await kgrag.index([root]);
      expect(rateLimited).toBe(2);
      expect(summary.failures).toHaveLength(1);
      const failedDoc = summary.failures[0]?.docId ?? "";
      const states = await kgrag.services.store.getChunkStates(failedDoc);
      expect(states[0]?.status).toBe("failed");
      expect(states[0]?.rawOutput).toContain("could not find anything");
      expect((await kgrag.services.store.getDocument(failedDoc))?.status).toBe("failed");

      chatScript.extract = extractReply;
      const extractsBefore = server.count("extract");
      const retry = await kgrag.index([root]);
      expect(retry.failures).toEqual([]);
      expect(server.count("extract") - extractsBefore).toBe(1);
      expect((await kgrag.services.store.getDocument(failedDoc))?.status).toBe("processed");
    } finally {
      await kgrag.close();
    }
  });

  it("fails a chunk answered with JSON of the wrong shape, caches nothing of it, and re-extracts it next run", async () => {
    const wrongShape = '{"entities": "none", "relationships": 5}';
    chatScript.extract = (call) => {
      const text = (call.body.messages ?? []).map((m) => m.content).join("\n");
      return text.includes("GAMMA ") ? { content: wrongShape } : extractReply(call);
    };
    const kgrag = await open();
    try {
      const summary = await kgrag.index([root]);
      expect(summary.failures).toHaveLength(1);
      const failedDoc = summary.failures[0]?.docId ?? "";
      const states = await kgrag.services.store.getChunkStates(failedDoc);
      expect(states[0]?.status).toBe("failed");
      expect(states[0]?.rawOutput).toBe(wrongShape);
      expect(summary.failures[0]?.error).toMatch(/shape/);

      chatScript.extract = extractReply;
      const extractsBefore = server.count("extract");
      const retry = await kgrag.index([root]);
      expect(retry.failures).toEqual([]);
      expect(server.count("extract") - extractsBefore).toBe(1);
      expect((await kgrag.services.store.getDocument(failedDoc))?.status).toBe("processed");
      const mentions = await kgrag.services.store.getChunkMentions([states[0]?.chunkId ?? ""]);
      expect(mentions.entities.map((m) => m.entityKey)).toContain(entityKey("Mara Okafor"));
    } finally {
      await kgrag.close();
    }
  });

  it("embeds the chunks while the model is still extracting", async () => {
    // The GAMMA chunk's extraction is held until an embeddings request arrives (or 5 s pass).
    let embeddedDuringExtraction = false;
    const held = await startScriptedOpenAI({
      chat: scriptByStage({
        extract: async (call) => {
          if (lastUserMessage(call).includes("GAMMA")) {
            const until = Date.now() + 5000;
            while (held.count("embed") === 0 && Date.now() < until) await sleep(20);
            embeddedDuringExtraction = held.count("embed") > 0;
          }
          return extractReply(call);
        },
        glean: () => EMPTY,
        report: () => chatScript.report?.({ body: {} } as ChatCall) ?? EMPTY,
      }),
    });
    const kgrag = await createKgrag({
      env: {
        KGRAG_LLM_BASE_URL: held.baseURL,
        KGRAG_LLM_API_KEY: "test-key",
        KGRAG_LLM_MODEL: "scripted-chat",
        KGRAG_EMBEDDING_MODEL: "scripted-embed",
        KGRAG_EMBEDDING_DIM: "64",
      },
      config: { workspace: join(root, "ws-overlap") },
    });
    try {
      const summary = await kgrag.index([root]);
      expect(summary.failures).toEqual([]);
      expect(embeddedDuringExtraction).toBe(true);
      const chunks = await kgrag.services.store.listChunks();
      expect((await kgrag.services.store.vectorHashes("chunks")).size).toBe(chunks.length);
    } finally {
      await kgrag.close();
      await held.close();
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
