import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.js";
import { estimateIndexing } from "../../src/estimate/dry-run.js";
import { parseSourceDocuments } from "../../src/ingest/source-input.js";

const DOCUMENTS = parseSourceDocuments([
  {
    id: "mill",
    title: "Ashford Mill",
    text:
      "Gideon Vale built Ashford Mill on the River Tess in 1843. Martha Vale ran Ashford Mill after Gideon Vale died. " +
      "The Ashford Company bought Ashford Mill from Martha Vale in 1871.",
  },
  {
    id: "town",
    title: "Ashford",
    text:
      "Ashford is a market town on the River Tess. Gideon Vale was mayor of Ashford. " +
      "The Ashford Company employed most of the town.",
  },
]);

const ENDPOINT = "http://127.0.0.1:9/v1";

function configWith(overrides: Record<string, unknown>) {
  return ConfigSchema.parse({
    embedding: {
      baseURL: ENDPOINT,
      model: "embed",
      dimension: 8,
      batchSize: 2,
      price: { inputPerMillion: 1 },
    },
    community: { enabled: false },
    ...overrides,
  });
}

const withChat = { llm: { baseURL: ENDPOINT, model: "chat" } };

describe("index --dry-run: entity resolution's embeddings", () => {
  it("counts the entities' vectors under resolve when resolution runs, without changing the total", async () => {
    const resolving = await estimateIndexing(
      configWith({ ...withChat, entityResolution: "auto" }),
      DOCUMENTS,
    );
    const { embed, resolve } = resolving.embedding.stages;
    expect(resolving.assumed.entities).toBeGreaterThan(1);
    expect(resolve?.inputs).toBe(resolving.assumed.entities);
    expect(resolve?.calls).toBeGreaterThan(0);
    expect(resolve?.tokens).toBeGreaterThan(0);
    expect(resolve?.cost).toBeCloseTo((resolve?.tokens ?? 0) / 1e6);
    for (const field of ["inputs", "calls", "tokens"] as const)
      expect((resolve?.[field] ?? 0) + embed[field]).toBe(resolving.embedding[field]);

    // Resolution off: the embed stage sends the entities, and the run sends as much in all.
    const off = await estimateIndexing(configWith({ ...withChat, entityResolution: "off" }), DOCUMENTS);
    const { model: _model, stages, ...offTotal } = off.embedding;
    expect(stages).toEqual({ embed: offTotal });
    const { model: _same, stages: _split, ...resolvingTotal } = resolving.embedding;
    expect(offTotal).toEqual(resolvingTotal);
  });

  it("follows when a run resolves: auto needs a chat model, on does not, and similarity must be on", async () => {
    const stages = async (overrides: Record<string, unknown>) =>
      Object.keys((await estimateIndexing(configWith(overrides), DOCUMENTS)).embedding.stages).sort();
    expect(await stages({ entityResolution: "auto" })).toEqual(["embed"]);
    expect(await stages({ entityResolution: "on" })).toEqual(["embed", "resolve"]);
    expect(await stages({ entityResolution: "on", resolution: { similarity: { enabled: false } } })).toEqual([
      "embed",
    ]);
  });
});
