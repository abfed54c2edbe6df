import { FakeEmbeddings, SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { EmbeddingDimensionError } from "../../src/embedding/dimension-error.js";
import { LangChainEmbedder } from "../../src/embedding/langchain-embedder.js";
import { UsageTracker } from "../../src/llm/usage.js";
import { countTokens } from "../../src/util/tokens.js";

describe("LangChainEmbedder", () => {
  it("probes the dimension and embeds documents", async () => {
    const embedder = await LangChainEmbedder.create(new SyntheticEmbeddings({ vectorSize: 6 }));
    expect(embedder.kind).toBe("langchain");
    expect(embedder.dimension).toBe(6);
    expect(embedder.model).toBe("SyntheticEmbeddings");
    const vectors = await embedder.embed(["alpha", "beta", "gamma"]);
    expect(vectors).toHaveLength(3);
    expect(vectors.every((v) => v.length === 6)).toBe(true);
  });

  it("takes the model name and dimension when given", async () => {
    const embedder = await LangChainEmbedder.create(new FakeEmbeddings(), {
      model: "fake-emb",
      dimension: 4,
    });
    expect(embedder.model).toBe("fake-emb");
    expect(await embedder.embed(["x"])).toEqual([[0.1, 0.2, 0.3, 0.4]]);
  });

  it("fails clearly when vectors do not match the dimension", async () => {
    const embedder = await LangChainEmbedder.create(new FakeEmbeddings(), { dimension: 8 });
    await expect(embedder.embed(["x"])).rejects.toBeInstanceOf(EmbeddingDimensionError);
  });

  it("reports its requests, by the object's batchSize, and their tokens to the usage tracker", async () => {
    const usage = new UsageTracker();
    const batched = Object.assign(new FakeEmbeddings(), { batchSize: 2 });
    const embedder = await LangChainEmbedder.create(batched, { dimension: 4 }, usage);
    const texts = ["alpha beta", "gamma", "delta epsilon zeta"];
    await embedder.embed(texts);
    const tokens = texts.reduce((sum, t) => sum + countTokens(t), 0);
    expect(usage.embedding()).toEqual({ requests: 2, tokens });
    const unbatched = await LangChainEmbedder.create(new FakeEmbeddings(), { dimension: 4 }, usage);
    await unbatched.embed(texts);
    expect(usage.embedding()).toEqual({ requests: 3, tokens: 2 * tokens });
  });
});
