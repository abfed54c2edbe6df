import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { stageOf } from "../../src/llm/requests-sent.js";
import { loadRules } from "../../src/resolve/rules.js";
import { plausibleReplies } from "../support/plausible-replies.js";
import { type EmbeddingsCall, startScriptedOpenAI } from "../support/scripted-openai-server.js";

const DOCUMENTS = [
  { id: "lumen", title: "Lumen", text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015." },
  { id: "tidewell", title: "Tidewell", text: "Tidewell Harbour bought twelve drones from Lumen Robotics." },
  {
    id: "okafor",
    title: "Okafor",
    text: "Mara Okafor studied engineering in Porto before moving to Lisbon.",
  },
];

/**
 * Releases held replies when the awaited request arrives, or a safety delay after the first reply
 * was held (then it failed). The delay starts with the first held reply, not with the test, so a
 * busy machine's slow start-up and extraction do not count against it.
 */
class Gate {
  private release!: (by: string) => void;
  private timer: NodeJS.Timeout | undefined;
  private opened = false;
  readonly released = new Promise<string>((resolve) => {
    this.release = resolve;
  });

  /** A reply waits here; the first one starts the safety delay. */
  hold(): Promise<string> {
    if (!this.timer && !this.opened) this.timer = setTimeout(() => this.release("timeout"), 30_000);
    return this.released;
  }

  open(by: string): void {
    this.opened = true;
    clearTimeout(this.timer);
    this.release(by);
  }
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A scripted model whose embedding calls picked by `held` wait at a gate that the first report
 * request opens, and a workspace indexing through it.
 */
async function gatedRun(held: (call: EmbeddingsCall) => boolean, entityResolution: "on" | "off") {
  const gate = new Gate();
  const server = await startScriptedOpenAI({
    embeddings: async (call: EmbeddingsCall) => {
      if (held(call)) await gate.hold();
      return undefined;
    },
    chat: (call) => {
      if (call.stage === "report") gate.open("report");
      return plausibleReplies(call);
    },
  });
  dir = await mkdtemp(join(tmpdir(), "kgrag-overlap-"));
  const kg = await createKgrag({
    env: {},
    config: {
      workspace: dir,
      llm: { baseURL: server.baseURL, model: "scripted", apiKey: "k", concurrency: 4 },
      embedding: { baseURL: server.baseURL, model: "scripted-embed", dimension: 64 },
      entityResolution,
    },
  });
  return { gate, server, kg };
}

describe("an index run keeps the model busy between stages", () => {
  it("asks for the community reports while the graph's vectors are still being embedded", async () => {
    // The first embedding call is the chunks' (sent with extraction); the next ones are the graph's
    // entities and relationships. They are held until a report request arrives: a run that wrote
    // reports only after its vectors would wait here until the gate's safety delay.
    const { gate, server, kg } = await gatedRun((call) => call.callIndex >= 1, "off");
    try {
      const summary = await kg.index(DOCUMENTS);
      expect(summary.failures).toEqual([]);
      expect(await gate.released).toBe("report");
      // Nothing was skipped to get there: every entity and relationship has its vector.
      const counts = await kg.services.store.counts();
      const entityVectors = await kg.services.store.vectorHashes("entities");
      const relationshipVectors = await kg.services.store.vectorHashes("relationships");
      expect(entityVectors.size).toBe(counts.entities);
      expect(relationshipVectors.size).toBe(counts.relationships);
      expect(counts.communities).toBeGreaterThan(0);
    } finally {
      await kg.close();
      await server.close();
    }
  });

  it("asks for the reports while entity resolution waits on its embedding, and asks for none twice", async () => {
    // After the chunks' embedding call, the next one is resolution's (the merged entities): held
    // until a report request arrives, which a run asking for reports only after resolution never sends.
    const { gate, server, kg } = await gatedRun((call) => call.callIndex === 1, "on");
    try {
      const summary = await kg.index(DOCUMENTS);
      expect(summary.failures).toEqual([]);
      expect(await gate.released).toBe("report");
      // Resolution merged nothing here, so every report asked ahead was used: one request each.
      expect(await loadRules(kg.services.store)).toEqual([]);
      const communities = await kg.services.store.listCommunities();
      expect(communities.length).toBeGreaterThan(0);
      expect(communities.every((c) => c.report?.method === "llm")).toBe(true);
      expect(server.count("report")).toBe(communities.length);
    } finally {
      await kg.close();
      await server.close();
    }
  });

  it("sends the first extraction request before a many-document input is all registered, to the same graph", async () => {
    const gate = new Gate();
    const server = await startScriptedOpenAI({
      chat: (call) => {
        if (call.stage === "extract") gate.open("extract");
        return plausibleReplies(call);
      },
    });
    try {
      // Registration batches after the first wait at the gate until an extraction request arrives:
      // a run that registered every document before extracting would wait for the safety delay.
      const overlapped = await harbourWorkspace(server.baseURL, 4);
      overlapped.beforeBatch = (n) => (n > 1 ? gate.hold() : undefined);
      const first = await overlapped.kg.index(HARBOURS);
      expect(first.failures).toEqual([]);
      expect(await gate.released).toBe("extract");
      expect(overlapped.batches).toBeGreaterThan(1);

      const inTurn = await harbourWorkspace(server.baseURL, 0);
      expect((await inTurn.kg.index(HARBOURS)).failures).toEqual([]);
      expect(inTurn.batches).toBe(1);
      expect(await graphOf(overlapped.kg)).toEqual(await graphOf(inTurn.kg));
      await Promise.all([overlapped.close(), inTurn.close()]);
    } finally {
      await server.close();
    }
  });

  it("starts indexing the chunks' text while the first extraction replies are awaited", async () => {
    // The chunk text index's first steps carry one-off costs (the sentence segmenter's locale data):
    // done while the first round is in flight, they no longer hold back the requests its replies
    // free. Extraction replies wait here until that index starts: a run that started it only after
    // the first reply would wait for the gate's safety delay.
    await indexWithExtractionHeldUntilChunkText({});
  });

  it("starts indexing the chunks' text only once the first round of extraction requests is written", async () => {
    // The index's first slice and the clustering libraries' load are synchronous: run before the
    // first round's requests are on their sockets, they held those requests back. Counted here
    // through undici's public channel, as the requests' bodies are written; replies are held
    // until the index starts, so no second round can make up the count.
    let extractionsWritten = 0;
    const countExtraction = (message: unknown) => {
      if (stageOf(message) === "extract") extractionsWritten += 1;
    };
    subscribe("undici:request:bodySent", countExtraction);
    try {
      let writtenAtStart: number | undefined;
      // No pause of its own: only the wait for the written requests stands before the index.
      await indexWithExtractionHeldUntilChunkText({ chunkTextPauseMs: 0 }, {}, () => {
        writtenAtStart ??= extractionsWritten;
      });
      // Two at a time: the whole first round was out before the index began.
      expect(writtenAtStart).toBe(2);
    } finally {
      unsubscribe("undici:request:bodySent", countExtraction);
    }
  });

  it("counts the first round by extraction's own concurrency when `stages.extraction` sets one", async () => {
    // Two calls in flight for extraction, four for the default model: waiting for four written
    // extraction requests would wait out firstRoundWaitMs (ten minutes here) with replies held.
    await indexWithExtractionHeldUntilChunkText(
      { chunkTextPauseMs: 0, firstRoundWaitMs: 600_000 },
      { llmConcurrency: 4, extractionConcurrency: 2 },
    );
  });

  it("sends the first extraction request while later documents are still being chunked", async () => {
    // Nothing holds the registration here: chunking and the embedded store are synchronous, so the
    // request goes out only if registration gives the event loop a turn between documents.
    const documents = Array.from({ length: 60 }, (_, i) => ({
      id: `pier-${i}`,
      title: `Pier ${i}`,
      text: `Pier ${i} of Kessel Bay was rebuilt by the engineer Tomas Reyes after the storm of ${1900 + i}.`,
    }));
    let registeredAtFirstRequest: number | undefined;
    let run: Awaited<ReturnType<typeof harbourWorkspace>> | undefined;
    const server = await startScriptedOpenAI({
      chat: (call) => {
        if (call.stage === "extract") registeredAtFirstRequest ??= run?.documents;
        return plausibleReplies(call);
      },
    });
    try {
      run = await harbourWorkspace(server.baseURL, 4);
      expect((await run.kg.index(documents)).failures).toEqual([]);
      expect(run.documents).toBe(documents.length);
      expect(registeredAtFirstRequest).toBeLessThan(documents.length);
      await run.close();
    } finally {
      await server.close();
    }
  });

  it("stops with the error of a registration that fails after extraction started; the next run ends on the same graph", async () => {
    const gate = new Gate();
    const server = await startScriptedOpenAI({
      chat: (call) => {
        if (call.stage === "extract") gate.open("extract");
        return plausibleReplies(call);
      },
    });
    try {
      // The second batch fails once the first batch's extraction is under way.
      const failing = await harbourWorkspace(server.baseURL, 4);
      failing.beforeBatch = async (n) => {
        if (n !== 2) return;
        await gate.hold();
        throw new Error("disk full");
      };
      await expect(failing.kg.index(HARBOURS)).rejects.toThrow("disk full");
      expect(await gate.released).toBe("extract");
      failing.beforeBatch = undefined;
      expect((await failing.kg.index(HARBOURS)).failures).toEqual([]);

      const clean = await harbourWorkspace(server.baseURL, 0);
      expect((await clean.kg.index(HARBOURS)).failures).toEqual([]);
      expect(await graphOf(failing.kg)).toEqual(await graphOf(clean.kg));
      await Promise.all([failing.close(), clean.close()]);
    } finally {
      await server.close();
    }
  });
});

const HARBOURS = Array.from({ length: 20 }, (_, i) => ({
  id: `harbour-${i}`,
  title: `Harbour ${i}`,
  text: `Harbourmaster Odile Brandt of Kessel Bay logged the ship Northwind ${i} arriving from Port ${i}.`,
}));

/**
 * Indexes the harbours with every extraction reply held until the chunk text index starts
 * (`onIndexStart` runs at that moment): the run ends only if that index starts before any reply.
 */
async function indexWithExtractionHeldUntilChunkText(
  overlap: Record<string, number>,
  calls: HarbourCalls = {},
  onIndexStart: () => void = () => {},
): Promise<void> {
  const gate = new Gate();
  const server = await startScriptedOpenAI({
    chat: async (call) => {
      if (call.stage === "extract") await gate.hold();
      return plausibleReplies(call);
    },
  });
  try {
    const run = await harbourWorkspace(server.baseURL, 4, overlap, calls);
    const { store } = run.kg.services;
    const indexChunkText = store.indexChunkText?.bind(store);
    expect(indexChunkText).toBeDefined();
    store.indexChunkText = (slices, signal) => {
      onIndexStart();
      gate.open("chunk text");
      return indexChunkText?.(slices, signal) ?? Promise.resolve();
    };
    expect((await run.kg.index(HARBOURS)).failures).toEqual([]);
    expect(await gate.released).toBe("chunk text");
    await run.close();
  } finally {
    await server.close();
  }
}

/** Calls in flight: the default model's, and extraction's own under `stages` when given. */
interface HarbourCalls {
  llmConcurrency?: number;
  extractionConcurrency?: number;
}

/**
 * A workspace indexing through the scripted model, two requests at a time (unless `calls` says), whose first
 * registration batch is cut at `firstRegistrationChunks`; `beforeBatch` runs before each
 * registration batch is stored (numbered from 1) and may hold it or fail it.
 */
async function harbourWorkspace(
  baseURL: string,
  firstRegistrationChunks: number,
  overlap: Record<string, number> = {},
  calls: HarbourCalls = {},
) {
  const workspace = await mkdtemp(join(tmpdir(), "kgrag-overlap-"));
  const kg = await createKgrag({
    env: {},
    config: {
      workspace,
      llm: { baseURL, model: "scripted", apiKey: "k", concurrency: calls.llmConcurrency ?? 2 },
      ...(calls.extractionConcurrency
        ? { stages: { extraction: { concurrency: calls.extractionConcurrency } } }
        : {}),
      embedding: { baseURL, model: "scripted-embed", dimension: 64 },
      entityResolution: "off",
      community: { enabled: false },
      indexOverlap: { firstRegistrationChunks, ...overlap },
    },
  });
  const { store } = kg.services;
  const register = store.registerDocuments.bind(store);
  const harness = {
    kg,
    batches: 0,
    /** Documents stored so far. */
    documents: 0,
    beforeBatch: undefined as ((n: number) => unknown) | undefined,
    close: async () => {
      await kg.close();
      await rm(workspace, { recursive: true, force: true });
    },
  };
  store.registerDocuments = async (registrations) => {
    harness.batches += 1;
    await harness.beforeBatch?.(harness.batches);
    await register(registrations);
    harness.documents += registrations.length;
  };
  return harness;
}

/** The merged graph, apart from record times: entities and relationships with their sources. */
async function graphOf(kg: Kgrag) {
  const { store } = kg.services;
  const entities = await store.listEntities();
  const relationships = await store.listRelationships();
  return {
    entities: entities.map((e) => [e.key, e.description, e.sourceChunkIds]).sort(),
    relationships: relationships.map((r) => [r.key, r.description, r.sourceChunkIds]).sort(),
  };
}
