import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema, configFromEnv } from "../../src/config.js";
import { dryRunIndex, estimateIndexing, estimateUpdate } from "../../src/estimate/dry-run.js";
import { readWorkspaceGraph } from "../../src/estimate/workspace-graph.js";
import { chunkDocument } from "../../src/ingest/chunker.js";
import { loadSources } from "../../src/ingest/loaders.js";
import { parseSourceDocuments } from "../../src/ingest/source-input.js";
import { createKgrag } from "../../src/kgrag.js";
import { packagePath } from "../../src/util/paths.js";

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

describe("index --dry-run on a workspace with communities (warm start)", () => {
  it("counts reports for the communities the new documents change, as the run writes them", async () => {
    // The offline run extracts with the offline extractor, as the estimate's stand-in does.
    const root = mkdtempSync(join(tmpdir(), "kgrag-dry-run-update-"));
    try {
      const workspace = join(root, "ws");
      const corpus = packagePath("samples/corpus");
      const files = readdirSync(corpus)
        .filter((name) => name.endsWith(".md") || name.endsWith(".txt"))
        .sort();
      const [update, ...first] = files.map((name) => join(corpus, name));
      const kgrag = await createKgrag({ env: {}, config: { workspace } });
      try {
        await kgrag.index(first);
        const before = await kgrag.services.store.listCommunities();
        const config = configFromEnv({}, { workspace });
        const { documents } = await loadSources([update as string]);
        const estimate = await estimateIndexing(config, documents, [], {
          workspace: await readWorkspaceGraph(config),
        });
        const fromScratch = await estimateIndexing(config, documents);
        await kgrag.index([update as string]);
        const kept = new Set(before.map((c) => `${c.id} ${c.reportHash}`));
        const after = await kgrag.services.store.listCommunities();
        const written = after.filter((c) => !kept.has(`${c.id} ${c.reportHash}`)).length;
        expect(estimate.assumed.existingCommunities).toBe(before.length);
        expect(estimate.stages.report?.calls).toBe(written);
        // From scratch it would count the new document's own communities, not the ones it changes.
        expect(fromScratch.stages.report?.calls).not.toBe(written);
      } finally {
        await kgrag.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("index --dry-run of a corpus indexed already, plus a new file", () => {
  it("counts extraction for the new document only and reports the others as unchanged", async () => {
    const root = mkdtempSync(join(tmpdir(), "kgrag-dry-run-rerun-"));
    try {
      const workspace = join(root, "ws");
      const docs = join(root, "docs");
      mkdirSync(docs);
      const corpus = packagePath("samples/corpus");
      const files = readdirSync(corpus)
        .filter((name) => name.endsWith(".md") || name.endsWith(".txt"))
        .sort();
      const [added, ...first] = files;
      for (const name of first) copyFileSync(join(corpus, name), join(docs, name));
      const kgrag = await createKgrag({ env: {}, config: { workspace } });
      try {
        await kgrag.index([docs]);
      } finally {
        await kgrag.close();
      }
      copyFileSync(join(corpus, added as string), join(docs, added as string));
      const config = configFromEnv({}, { workspace });
      const { documents } = await loadSources([join(docs, added as string)]);
      const newChunks = chunkDocument(documents[0] as (typeof documents)[number], config.chunking).length;

      const estimate = await dryRunIndex(config, [docs]);
      expect(estimate.documents).toBe(1);
      expect(estimate.stages.extract?.calls).toBe(newChunks);
      expect(estimate.unchanged).toBe(first.length);
      expect(estimate.workspaceRead).toBe(true);
      expect(estimate.assumed.existingCommunities).toBeGreaterThan(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("on Neo4j opens no database: every document counts as new and existing communities are not read", async () => {
    const config = configFromEnv({
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: "bolt://127.0.0.1:9",
      NEO4J_USERNAME: "neo4j",
      NEO4J_PASSWORD: "unreachable",
    });
    const estimate = await dryRunIndex(config, [packagePath("samples/corpus")]);
    expect(estimate.workspaceRead).toBe(false);
    expect(estimate.unchanged).toBe(0);
    expect(estimate.documents).toBeGreaterThan(1);
    expect(estimate.assumed.existingCommunities).toBe(0);
  });
});

/** The samples corpus as in-memory documents (id, title, text), in file order. */
async function sampleDocuments() {
  const corpus = packagePath("samples/corpus");
  const files = readdirSync(corpus)
    .filter((name) => name.endsWith(".md") || name.endsWith(".txt"))
    .sort();
  const { documents } = await loadSources(files.map((name) => join(corpus, name)));
  return documents.map(({ id, title, text }) => ({ id, title, text }));
}

/** Reports a run wrote: communities whose id or report hash is not among `before`'s. */
function written(before: { id: string; reportHash: string | null }[], after: typeof before): number {
  const kept = new Set(before.map((c) => `${c.id} ${c.reportHash}`));
  return after.filter((c) => !kept.has(`${c.id} ${c.reportHash}`)).length;
}

describe("index --dry-run of an update that changes documents' content", () => {
  it("leaves the old versions out of the graph it clusters: the communities that lose them count", async () => {
    const root = mkdtempSync(join(tmpdir(), "kgrag-dry-run-changed-"));
    try {
      const workspace = join(root, "ws");
      const documents = await sampleDocuments();
      const kgrag = await createKgrag({ env: {}, config: { workspace } });
      try {
        await kgrag.index(documents);
        const before = await kgrag.services.store.listCommunities();
        // Two documents rewritten about something else: the records only they named go away.
        const changed = documents
          .slice(0, 2)
          .map((doc, i) => ({ ...doc, text: (DOCUMENTS[i] as (typeof DOCUMENTS)[number]).text }));
        const config = configFromEnv({}, { workspace });
        const estimate = await estimateUpdate(config, parseSourceDocuments(changed));
        await kgrag.index(changed);
        const after = await kgrag.services.store.listCommunities();
        expect(estimate.updated).toBe(2);
        expect(estimate.stages.report?.calls).toBe(written(before, after));
      } finally {
        await kgrag.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("index --dry-run of documents whose earlier indexing did not finish", () => {
  it("counts only the chunks the earlier run did not merge", async () => {
    const root = mkdtempSync(join(tmpdir(), "kgrag-dry-run-resumed-"));
    try {
      const workspace = join(root, "ws");
      // Small chunks: each document has several, so one can be left unfinished.
      const chunking = { size: 40, overlap: 0 };
      const documents = parseSourceDocuments(await sampleDocuments());
      const kgrag = await createKgrag({ env: {}, config: { workspace, chunking } });
      const config = configFromEnv({}, { workspace, chunking });
      const unfinished = documents[0] as (typeof documents)[number];
      const chunks = chunkDocument(unfinished, config.chunking);
      expect(chunks.length).toBeGreaterThan(2);
      try {
        await kgrag.index(documents);
        // As a run killed mid-way leaves it: the document processing, one chunk failed, the others merged.
        const { store } = kgrag.services;
        const record = await store.getDocument(unfinished.id);
        await store.registerDocuments([
          { document: { ...(record as NonNullable<typeof record>), status: "processing" }, chunks },
        ]);
        await store.markChunkFailed((chunks[1] as (typeof chunks)[number]).id, "cut off", null);
      } finally {
        await kgrag.close();
      }
      const estimate = await estimateUpdate(config, documents);
      expect(estimate.resumed).toBe(1);
      expect(estimate.unchanged).toBe(documents.length - 1);
      expect(estimate.chunks).toBe(chunks.length);
      expect(estimate.chunksDone).toBe(chunks.length - 1);
      expect(estimate.stages.extract?.calls).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
