import { afterEach, describe, expect, it } from "vitest";
import { EmbeddingSchema } from "../../src/config.js";
import { EmbeddingDimensionError } from "../../src/embedding/dimension-error.js";
import { OpenAIEmbedder } from "../../src/embedding/openai-embedder.js";
import {
  defaultVectors,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options: ScriptedServerOptions, embedding: Record<string, unknown> = {}) {
  server = await startScriptedOpenAI(options);
  const parsed = EmbeddingSchema.parse({
    baseURL: server.baseURL,
    apiKey: "test",
    model: "emb",
    ...embedding,
  });
  const config = { ...parsed, model: parsed.model ?? "emb" };
  return { server, create: () => OpenAIEmbedder.create(config, { baseDelayMs: 5, maxDelayMs: 20 }) };
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `passage number ${i}`);

describe("OpenAIEmbedder against the scripted server", () => {
  it("batches, keeps input order and tags requests with the embed stage", async () => {
    const { server, create } = await setup({ embeddingDimension: 16 }, { dimension: 16, batchSize: 4 });
    const embedder = await create();
    const input = texts(10);
    const vectors = await embedder.embed(input);
    expect(server.count("embed")).toBe(3);
    expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([4, 4, 2]);
    expect(vectors).toEqual(defaultVectors(input, 16));
    expect(server.requests[0]?.body.dimensions).toBe(16);
    expect(server.requests[0]?.body.encoding_format).toBe("float");
  });

  it("probes the dimension once when none is configured, and sends no dimensions param", async () => {
    const { server, create } = await setup({ embeddingDimension: 24 });
    const embedder = await create();
    expect(embedder.dimension).toBe(24);
    expect(embedder.kind).toBe("openai");
    await embedder.embed(texts(3));
    expect(server.count("embed")).toBe(2);
    expect(server.requests.every((r) => !("dimensions" in r.body))).toBe(true);
  });

  it("rejects fewer vectors than texts, saying how to send one text per request", async () => {
    const { create } = await setup(
      { embeddings: ({ input }) => ({ vectors: defaultVectors(input.slice(0, 1), 12) }) },
      { dimension: 12 },
    );
    const error = await (await create()).embed(texts(3)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /returned 1 vectors for 3 texts; .*set embedding\.batchSize to 1/,
    );
  });

  it("rejects vectors whose size differs from the configured dimension", async () => {
    const { create } = await setup(
      { embeddings: ({ input }) => ({ vectors: defaultVectors(input, 8) }) },
      {
        dimension: 12,
      },
    );
    const embedder = await create();
    const error = await embedder.embed(texts(2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingDimensionError);
    expect((error as Error).message).toMatch(/dimension 8, expected 12/);
  });

  it("rejects a dimension that changes within a run", async () => {
    const { create } = await setup({
      embeddings: ({ input, callIndex }) => ({ vectors: defaultVectors(input, callIndex === 0 ? 10 : 11) }),
    });
    const embedder = await create();
    expect(embedder.dimension).toBe(10);
    await expect(embedder.embed(texts(1))).rejects.toThrow(/dimension 11, expected 10/);
  });

  it("retries a 429 and keeps concurrency within the limit", async () => {
    const { server, create } = await setup(
      {
        latencyMs: 20,
        embeddings: ({ callIndex }) =>
          callIndex === 1 ? { status: 429, headers: { "retry-after-ms": "10" } } : undefined,
      },
      { dimension: 64, batchSize: 2, concurrency: 2 },
    );
    const vectors = await (await create()).embed(texts(12));
    expect(vectors).toHaveLength(12);
    expect(server.count("embed")).toBe(7);
    expect(server.maxInFlight).toBe(2);
  });

  it("makes no request for an empty list", async () => {
    const { server, create } = await setup({}, { dimension: 64 });
    expect(await (await create()).embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
