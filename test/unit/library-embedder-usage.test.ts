import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embedding/embedder.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { createKgrag } from "../../src/kgrag.js";
import { countTokens } from "../../src/util/tokens.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-embedder-usage-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An embedder of the caller's own (a "semantic" one: hashing vectors under another kind), recording what it is asked. */
function ownEmbedder(batchSize?: number): { embedder: Embedder; calls: string[][] } {
  const hashing = new HashingEmbedder(64);
  const calls: string[][] = [];
  const embedder: Embedder = {
    model: "my-embedding-model",
    dimension: hashing.dimension,
    kind: "test",
    embed: async (texts) => {
      calls.push(texts);
      return hashing.embed(texts);
    },
    ...(batchSize ? { requestsFor: (texts: number) => Math.ceil(texts / batchSize) } : {}),
  };
  return { embedder, calls };
}

const DOCUMENTS = [
  {
    id: "a",
    title: "Lumen",
    text: "Lumen Robotics builds warehouse robots in Leeds. Ada Voss founded Lumen Robotics.",
  },
  { id: "b", title: "Voss", text: "Ada Voss studied engineering in Delft before she moved to Leeds." },
];

const tokensOf = (calls: string[][]) => calls.flat().reduce((sum, text) => sum + countTokens(text), 0);

describe("an embedder passed to createKgrag", () => {
  it("is counted in the index summary's embedding usage and cost, as a configured one is", async () => {
    const { embedder, calls } = ownEmbedder();
    const kg = await createKgrag({
      env: {},
      config: {
        workspace: dir,
        storage: "sqlite",
        embedding: { model: "my-embedding-model", price: { inputPerMillion: 20 } },
      },
      chat: null,
      embedder,
    });
    try {
      const summary = await kg.index(DOCUMENTS);
      const sent = calls.filter((texts) => texts.length > 0);
      expect(sent.length).toBeGreaterThan(0);
      expect(summary.embedding.requests).toBe(sent.length);
      expect(summary.embedding.tokens).toBe(tokensOf(sent));
      expect(summary.embedding.cost).toBeCloseTo((tokensOf(sent) * 20) / 1e6, 12);
    } finally {
      await kg.close();
    }
  });

  it("counts the requests the embedder says a call sends, and a query's embeddings too", async () => {
    const { embedder, calls } = ownEmbedder(1);
    const kg = await createKgrag({
      env: {},
      config: { workspace: dir, storage: "sqlite" },
      chat: null,
      embedder,
    });
    try {
      const summary = await kg.index(DOCUMENTS);
      expect(summary.embedding.requests).toBe(calls.flat().length);
      const before = kg.services.usage.embedding();
      const asked = calls.length;
      await kg.query("Who founded Lumen Robotics?", { mode: "naive" });
      const questionCalls = calls.slice(asked);
      expect(questionCalls.flat().length).toBeGreaterThan(0);
      expect(kg.services.usage.embedding()).toEqual({
        requests: before.requests + questionCalls.flat().length,
        tokens: before.tokens + tokensOf(questionCalls),
      });
    } finally {
      await kg.close();
    }
  });

  it("leaves the offline hashing embedder uncounted, as the configured one is", async () => {
    const kg = await createKgrag({
      env: {},
      config: { workspace: dir, storage: "sqlite" },
      chat: null,
      embedder: new HashingEmbedder(64),
    });
    try {
      const summary = await kg.index(DOCUMENTS);
      expect(summary.embedding).toEqual({ requests: 0, tokens: 0, cost: 0 });
    } finally {
      await kg.close();
    }
  });
});
