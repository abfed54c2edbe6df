import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { type ClusterGraph, clusterGraphHierarchy } from "../../src/community/cluster.js";
import { ExtractiveReportBook } from "../../src/community/extractive-reports.js";
import { reportBudgetOf } from "../../src/community/report-context.js";
import type { BuiltInThreadConfig } from "../../src/config.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import type { Extractor } from "../../src/extraction/extractor.js";
import { OFFLINE_EXTRACTION_DEFAULTS } from "../../src/extraction/offline-defaults.js";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { createKgrag } from "../../src/kgrag.js";
import { loadGraphView } from "../../src/pipeline/graph-view.js";
import { runIndexWorkflow } from "../../src/pipeline/index-workflow.js";
import { BuiltInThread } from "../../src/threads/built-in-thread.js";
import type { ExtractRequest } from "../../src/threads/messages.js";
import {
  sharedBuiltInThread,
  ThreadedClusterer,
  ThreadedHashingEmbedder,
  ThreadedNlpExtractor,
  type ThreadedReportBatches,
  ThreadedReportsHost,
} from "../../src/threads/threaded-built-ins.js";
import type { ChunkRecord, SourceDocument } from "../../src/types.js";
import { silentProgress } from "../../src/util/progress.js";
import { blockModelGraph, nodesOf } from "../support/community-graphs.js";
import { graphSnapshot } from "../support/graph-snapshot.js";
import { passage, seededRandom, writeCorpus } from "../support/lifecycle-corpus.js";

const PASSAGES = [
  {
    title: "Ada Lovelace",
    text: "Ada Lovelace worked with Charles Babbage on the Analytical Engine in London.",
  },
  { title: "长江", text: "长江是中国最长的河流，流经上海和武汉。李白曾写诗赞美长江。" },
  { title: "Empty", text: "   " },
];

/** Every request goes to the thread at once. */
const EAGER: BuiltInThreadConfig = {
  enabled: true,
  inProcessChunks: 0,
  inProcessTexts: 0,
  minEmbedTexts: 1,
  minClusterEdges: 0,
  minThreadReports: 0,
  // Several batches per level, so that parents are written from reports of earlier batches.
  reportsPerRequest: 2,
  chunksInFlight: 64,
  idleMs: 60_000,
};

/** A temp folder for the describe block that calls it, removed after the block. */
function describeFolder(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** The host's report batches, which these tests expect it to open. */
function openedBatches(
  host: ThreadedReportsHost,
  ...args: Parameters<ThreadedReportsHost["open"]>
): ThreadedReportBatches {
  const batches = host.open(...args);
  if (!batches) throw new Error("expected the host to open report batches");
  return batches;
}

function chunkOf(text: string, index: number): ChunkRecord {
  return { id: `c${index}`, docId: "d", index, text, tokens: 10, start: 0, end: text.length };
}

const threads: BuiltInThread[] = [];
function startedThread(start?: ConstructorParameters<typeof BuiltInThread>[1]): BuiltInThread {
  const thread = new BuiltInThread(60_000, start);
  threads.push(thread);
  return thread;
}
/** A chunk from the start of its document, with the default settings. */
function chunkRequest(text: string, title: string): ExtractRequest {
  return { text, title, startsInside: false, options: OFFLINE_EXTRACTION_DEFAULTS };
}

afterAll(async () => {
  await Promise.all(threads.map((thread) => thread.close()));
});

describe("the built-ins' worker thread", () => {
  it("extracts and embeds exactly as the in-process built-ins do", async () => {
    const thread = startedThread();
    const here = new OfflineNlpExtractor();
    for (const { title, text } of PASSAGES) {
      expect(await thread.extract(chunkRequest(text, title))).toEqual(here.extractText(text, title));
    }
    // The run's settings and where the chunk starts travel with it.
    const lean = { ...OFFLINE_EXTRACTION_DEFAULTS, maxRelationshipsPerChunk: 2, sentencesPerEntity: 1 };
    const [first] = PASSAGES;
    const inside = `met Ada in Paris. ${first?.text ?? ""}`;
    const leanThere = await thread.extract({
      ...chunkRequest(inside, "Lean"),
      startsInside: true,
      options: lean,
    });
    expect(leanThere).toEqual(new OfflineNlpExtractor(lean).extractText(inside, "Lean", true));
    expect(leanThere.relationships.length).toBeLessThanOrEqual(2);
    const texts = [...PASSAGES.map((p) => p.text), "Ada", ""];
    const vectors = await thread.embed(texts, 64);
    expect(vectors).toEqual(await new HashingEmbedder(64).embed(texts));
    // Bit for bit, not only close.
    expect(vectors.map((v) => Buffer.from(new Float64Array(v).buffer).toString("hex"))).toEqual(
      (await new HashingEmbedder(64).embed(texts)).map((v) =>
        Buffer.from(new Float64Array(v).buffer).toString("hex"),
      ),
    );
    expect(thread.usable).toBe(true);
  });

  it("answers in the order it was asked, with many requests in flight", async () => {
    const thread = startedThread();
    const extractor = new ThreadedNlpExtractor(thread, EAGER);
    const random = seededRandom(3);
    const texts = Array.from(
      { length: 40 },
      (_, i) => `Record ${i}. Mara Okafor met Tomas Weber in ${random() > 0.5 ? "Lisbon" : "Porto"}.`,
    );
    const finished: number[] = [];
    const outcomes = await Promise.all(
      texts.map(async (text, i) => {
        const outcome = await extractor.extract(chunkOf(text, i), { title: "Records" });
        finished.push(i);
        return outcome;
      }),
    );
    expect(finished).toEqual(texts.map((_, i) => i));
    const here = new OfflineNlpExtractor();
    expect(outcomes).toEqual(
      texts.map((text) => ({ ok: true, extraction: here.extractText(text, "Records") })),
    );
  });

  it("falls back to in-process work when the thread cannot start, with the same results", async () => {
    const broken = startedThread(() => ({
      script: "throw new Error('no thread here')",
      options: { eval: true },
    }));
    const extractor = new ThreadedNlpExtractor(broken, EAGER);
    const embedder = new ThreadedHashingEmbedder(broken, EAGER, 32);
    const [first] = PASSAGES;
    const outcome = await extractor.extract(chunkOf(first?.text ?? "", 0), { title: first?.title ?? "" });
    expect(outcome).toEqual({
      ok: true,
      extraction: new OfflineNlpExtractor().extractText(first?.text ?? "", first?.title ?? ""),
    });
    expect(broken.usable).toBe(false);
    // Runs after that keep two chunks in flight, as in-process extraction always did.
    expect(extractor.inFlight).toBe(2);
    expect(new ThreadedNlpExtractor(startedThread(), EAGER).inFlight).toBe(EAGER.chunksInFlight);
    expect(await embedder.embed(["a b c", "d e"])).toEqual(
      await new HashingEmbedder(32).embed(["a b c", "d e"]),
    );
    await expect(broken.extract(chunkRequest("x", "y"))).rejects.toThrow(/unavailable: no thread here/);
  });

  it("clusters exactly as in-process, falls back when the thread is gone, and keeps small graphs in-process", async () => {
    const edges = blockModelGraph({ nodes: 300, edges: 900, blocks: 12, mixing: 0.8, seed: 5 });
    // Listed out of order, with an isolated entity: the hierarchy must not depend on either.
    const graph: ClusterGraph = {
      entityKeys: [...nodesOf(edges), "loner"].reverse(),
      edges: edges.map(([sourceKey, targetKey, weight]) => ({ sourceKey, targetKey, weight: weight ?? 1 })),
    };
    const options = { maxClusterSize: 10, seed: 7 };
    const here = clusterGraphHierarchy(graph, options);
    expect(here.nodes.length).toBeGreaterThan(10);
    const thread = startedThread();
    const answeredBefore = thread.answered;
    expect(await new ThreadedClusterer(thread, EAGER).hierarchy(graph, options)).toEqual(here);
    expect(thread.answered).toBe(answeredBefore + 1);
    // Under minClusterEdges the thread is not asked.
    const lazy = new ThreadedClusterer(thread, { ...EAGER, minClusterEdges: 10_000 });
    expect(await lazy.hierarchy(graph, options)).toEqual(here);
    expect(thread.answered).toBe(answeredBefore + 1);
    const broken = startedThread(() => ({
      script: "throw new Error('no thread here')",
      options: { eval: true },
    }));
    expect(await new ThreadedClusterer(broken, EAGER).hierarchy(graph, options)).toEqual(here);
    expect(broken.usable).toBe(false);
    // Warm-started from a hierarchy of another seed: the thread keeps it as in-process does.
    const previous = clusterGraphHierarchy(graph, { maxClusterSize: 10, seed: 8 });
    const warm = {
      ...options,
      warmStart: {
        previous: { communities: previous.nodes, fingerprints: previous.fingerprints },
        tolerance: 0.02,
      },
    };
    const warmHere = clusterGraphHierarchy(graph, warm);
    expect(warmHere.nodes).toEqual(previous.nodes);
    expect(await new ThreadedClusterer(thread, EAGER).hierarchy(graph, warm)).toEqual(warmHere);
  });

  it("extracts in-process with the extractor it is given, loading none of its own", async () => {
    const thread = startedThread(() => {
      throw new Error("the thread must not start");
    });
    const given = new OfflineNlpExtractor();
    const texts: string[] = [];
    given.extract = async (chunk) => {
      texts.push(chunk.text);
      return { ok: true, extraction: { entities: [], relationships: [] } };
    };
    const extractor = new ThreadedNlpExtractor(thread, { ...EAGER, inProcessChunks: 2 }, undefined, given);
    const outcome = await extractor.extract(chunkOf("Ada met Charles.", 0), { title: "A" });
    expect(outcome).toEqual({ ok: true, extraction: { entities: [], relationships: [] } });
    expect(texts).toEqual(["Ada met Charles."]);
  });

  it("keeps small runs and small embedding calls in-process", async () => {
    const thread = startedThread(() => {
      throw new Error("the thread must not start");
    });
    const config = { ...EAGER, inProcessChunks: 2, inProcessTexts: 3, minEmbedTexts: 5 };
    const extractor = new ThreadedNlpExtractor(thread, config);
    const embedder = new ThreadedHashingEmbedder(thread, config, 16);
    await extractor.extract(chunkOf("Ada met Charles.", 0), { title: "A" });
    await extractor.extract(chunkOf("Charles met Ada.", 1), { title: "A" });
    await embedder.embed(["one", "two", "three"]);
    await embedder.embed(["a question"]);
    expect(thread.usable).toBe(true);
    // The third chunk and a large call go to the thread (here: one that cannot start).
    await extractor.extract(chunkOf("Ada wrote notes.", 2), { title: "A" });
    expect(thread.usable).toBe(false);
  });
});

describe("stopping work queued on the thread", () => {
  it("drops the stopped run's queued requests at once and stays usable", async () => {
    const thread = startedThread();
    const extractor = new ThreadedNlpExtractor(thread, EAGER);
    const stop = new AbortController();
    const text = "Mara Okafor met Tomas Weber in Lisbon. ".repeat(40);
    const outcomes = Array.from({ length: 400 }, (_, i) =>
      extractor.extract(chunkOf(text, i), { title: "Long", signal: stop.signal }),
    );
    // Another caller's request, without the signal, is answered all the same.
    const other = thread.extract(chunkRequest("Ada met Charles in London.", "Other"));
    await outcomes[0];
    stop.abort();
    const settled = await Promise.all(outcomes);
    const stopped = settled.filter((o) => !o.ok);
    expect(stopped.length).toBeGreaterThan(300);
    expect(stopped[0]).toEqual({ ok: false, error: expect.stringMatching(/stopped/), rawOutput: null });
    expect(settled.filter((o) => o.ok).length + stopped.length).toBe(400);
    expect(await other).toEqual(new OfflineNlpExtractor().extractText("Ada met Charles in London.", "Other"));
    expect(thread.usable).toBe(true);
    // An already stopped signal never reaches the thread.
    await expect(
      extractor.extract(chunkOf(text, 0), { title: "Long", signal: stop.signal }),
    ).resolves.toMatchObject({
      ok: false,
    });
  });

  it("starts each run in-process again", async () => {
    let starts = 0;
    const thread = startedThread(() => {
      starts += 1;
      throw new Error("counted start");
    });
    const extractor = new ThreadedNlpExtractor(thread, { ...EAGER, inProcessChunks: 2 });
    for (let run = 0; run < 3; run++) {
      extractor.beginRun();
      await extractor.extract(chunkOf("Ada met Charles.", 0), { title: "A" });
      await extractor.extract(chunkOf("Charles met Ada.", 1), { title: "A" });
    }
    expect(starts).toBe(0);
    await extractor.extract(chunkOf("Ada wrote notes.", 2), { title: "A" });
    expect(starts).toBe(1);
  });

  it("hands a run known to be larger than inProcessChunks to the thread from its first chunk", async () => {
    let starts = 0;
    const thread = startedThread(() => {
      starts += 1;
      throw new Error("counted start");
    });
    const extractor = new ThreadedNlpExtractor(thread, { ...EAGER, inProcessChunks: 2 });
    // Two documents: no more chunks known than inProcessChunks, so the run starts in-process.
    extractor.beginRun({ documents: 2 });
    await extractor.extract(chunkOf("Ada met Charles.", 0), { title: "A" });
    expect(starts).toBe(0);
    extractor.beginRun({ documents: 3 });
    const outcome = await extractor.extract(chunkOf("Ada met Charles.", 0), { title: "A" });
    expect(starts).toBe(1);
    // The thread could not start: the chunk was extracted here all the same.
    expect(outcome).toEqual({
      ok: true,
      extraction: new OfflineNlpExtractor().extractText("Ada met Charles.", "A"),
    });
  });

  it("embeds large calls on the thread while it runs, before inProcessTexts texts", async () => {
    const thread = startedThread();
    const config = { ...EAGER, inProcessTexts: 1_000, minEmbedTexts: 2 };
    const embedder = new ThreadedHashingEmbedder(thread, config, 16);
    const texts = ["Ada met Charles.", "Charles met Ada."];
    const here = await new HashingEmbedder(16).embed(texts);
    expect(await embedder.embed(texts)).toEqual(here);
    expect(thread.started).toBe(false);
    await thread.extract(chunkRequest("Ada met Charles in London.", "A"));
    expect(thread.started).toBe(true);
    const answered = thread.answered;
    expect(await embedder.embed(texts)).toEqual(here);
    expect(thread.answered).toBe(answered + 1);
    // A question's vector stays in-process all the same.
    await embedder.embed(["a question"]);
    expect(thread.answered).toBe(answered + 1);
  });
});

describe("an index run with the built-ins on their thread", () => {
  const root = describeFolder("kgrag-built-in-thread-");

  it("builds the same graph, communities and vectors as one on the main thread", async () => {
    const corpus = join(root, "corpus");
    const paths = writeCorpus(corpus, 24, 11);
    // One document of several chunks: 25 documents, more than 25 chunks.
    const random = seededRandom(5);
    const long = Array.from({ length: 30 }, (_, n) => passage(100 + n, random)).join(" ");
    writeFileSync(join(corpus, "long.txt"), `${long}\n`);
    const chunking = { size: 64, overlap: 8 };
    const snapshots = [];
    const vectorSamples = [];
    const communities = [];
    // "switching": the run's first chunks in-process, the rest on the thread (order kept across);
    // "large": more documents than inProcessChunks, so every chunk goes to the thread.
    for (const [name, builtInThread] of [
      ["threaded", EAGER],
      ["switching", { ...EAGER, inProcessChunks: paths.length + 2, inProcessTexts: 50, minEmbedTexts: 8 }],
      ["large", { ...EAGER, inProcessChunks: 7, inProcessTexts: 10_000, minEmbedTexts: 8 }],
      ["main", { enabled: false }],
    ] as const) {
      const config = { workspace: join(root, name), builtInThread, chunking };
      const kgrag = await createKgrag({ env: {}, config });
      try {
        await kgrag.index([corpus]);
        const { store } = kgrag.services;
        snapshots.push(await graphSnapshot(store));
        const ids = (await loadGraphView(store)).entities.map((e) => e.key).sort();
        vectorSamples.push(await store.getVectors?.("entities", ids));
        communities.push(
          (await store.listCommunities())
            .map((c) => ({ id: c.id, level: c.level, entityKeys: c.entityKeys, report: c.report }))
            .sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
        const counts = await store.counts();
        expect(counts.entities).toBeGreaterThan(10);
        expect(counts.communities).toBeGreaterThan(0);
      } finally {
        await kgrag.close();
      }
    }
    // The threaded run did use the thread: every chunk and every embedding call of its graph.
    const shared = sharedBuiltInThread(EAGER);
    expect(shared.usable).toBe(true);
    expect(shared.answered).toBeGreaterThan(24);
    expect(vectorSamples[3]?.length).toBeGreaterThan(10);
    expect(snapshots[3]?.chunks.length).toBeGreaterThan(paths.length + 4);
    for (const threaded of [0, 1, 2]) {
      expect(snapshots[threaded]).toEqual(snapshots[3]);
      expect(vectorSamples[threaded]).toEqual(vectorSamples[3]);
      expect(communities[threaded]).toEqual(communities[3]);
    }
  }, 60_000);
});

describe("offline reports on a thread of their own", () => {
  const root = describeFolder("kgrag-report-thread-");

  it("writes the reports the in-process book writes, falls back when the thread is gone, and keeps few in-process", async () => {
    const corpus = join(root, "corpus");
    writeCorpus(corpus, 16, 5);
    const kgrag = await createKgrag({
      env: {},
      config: { workspace: join(root, "ws"), builtInThread: { enabled: false } },
    });
    try {
      await kgrag.index([corpus]);
      const { store, config } = kgrag.services;
      const graph = await loadGraphView(store);
      const stored = await store.listCommunities();
      expect(stored.length).toBeGreaterThan(3);
      // As the report step sees a fresh hierarchy: no report yet, deepest level first.
      const fresh = () => stored.map((c) => ({ ...c, report: null, reportHash: null }));
      const order = [...stored].sort((a, b) => b.level - a.level).map((c) => c.id);
      const input = () => ({ graph, communities: fresh(), budget: reportBudgetOf(config) });
      const expected = new ExtractiveReportBook(input()).write(order);
      expect(expected.map((w) => w.report)).toEqual(
        order.map((id) => stored.find((c) => c.id === id)?.report),
      );

      const broken = () => ({ script: "throw new Error('no thread here')", options: { eval: true } });
      for (const [start, answered] of [
        [undefined, 1 + Math.ceil(order.length / 3)],
        [broken, 0],
      ] as const) {
        const batches = openedBatches(new ThreadedReportsHost(EAGER, start), input(), order.length);
        try {
          const written = [];
          for (let i = 0; i < order.length; i += 3)
            written.push(...(await batches.write(order.slice(i, i + 3))));
          expect(written).toEqual(expected);
          // The graph, then every batch, answered by the thread (none when it could not start).
          expect(batches.answeredOnThread).toBe(answered);
        } finally {
          await batches.close();
        }
      }
      const few = new ThreadedReportsHost({ ...EAGER, minThreadReports: order.length + 1 });
      expect(few.open(input(), order.length)).toBeUndefined();
      expect(new ThreadedReportsHost(EAGER).open(input(), 0)).toBeUndefined();

      // A pause longer than the built-ins' idle time between two batches: the thread keeps the graph.
      const idling = openedBatches(new ThreadedReportsHost({ ...EAGER, idleMs: 20 }), input(), order.length);
      try {
        const head = await idling.write(order.slice(0, 2));
        await sleep(200);
        const rest = await idling.write(order.slice(2));
        expect([...head, ...rest]).toEqual(expected);
        expect(idling.answeredOnThread).toBe(3);
      } finally {
        await idling.close();
      }

      // Closed with a batch in hand: the batch is dropped, not written on this thread instead.
      const closing = openedBatches(new ThreadedReportsHost(EAGER), input(), order.length);
      const inHand = expect(closing.write(order)).rejects.toThrow(/stopped/);
      await closing.close();
      await inHand;
      await expect(closing.write(order.slice(0, 1))).rejects.toThrow(/stopped/);
    } finally {
      await kgrag.close();
    }
  }, 60_000);
});

describe("a run stopped while its reports are written on their thread", () => {
  const root = describeFolder("kgrag-report-thread-stop-");

  it("keeps the reports it saved, and the next run writes the rest as an unstopped run did", async () => {
    const corpus = join(root, "corpus");
    writeCorpus(corpus, 16, 9);
    const reportsOf = async (workspace: string, stopAfter?: number) => {
      const stop = new AbortController();
      let written = 0;
      const progress = {
        ...silentProgress,
        advance(step: string) {
          if (step !== "community reports") return;
          written += 1;
          if (written === stopAfter) stop.abort(new Error("stopped for the test"));
        },
      };
      const builtInThread = { ...EAGER, reportsPerRequest: 1 };
      const kgrag = await createKgrag({ env: {}, config: { workspace, builtInThread }, progress });
      try {
        const run = kgrag.index([corpus], { signal: stop.signal });
        if (stopAfter === undefined) await run;
        else await expect(run).rejects.toThrow();
        const communities = await kgrag.services.store.listCommunities();
        return { total: communities.length, reports: communities.map((c) => [c.id, c.report] as const) };
      } finally {
        await kgrag.close();
      }
    };
    const whole = await reportsOf(join(root, "whole"));
    expect(whole.total).toBeGreaterThan(4);
    const stopped = await reportsOf(join(root, "stopped"), 3);
    const kept = stopped.reports.filter(([, report]) => report !== null);
    // Saved before the stop: at least those counted, at most one batch more (the one in hand).
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(whole.total);
    for (const [id, report] of kept) expect(report).toEqual(new Map(whole.reports).get(id));
    const resumed = await reportsOf(join(root, "stopped"));
    expect(resumed.reports).toEqual(whole.reports);
  }, 60_000);
});

describe("an index run's chunks in flight", () => {
  const root = describeFolder("kgrag-in-flight-");

  it("follow the extractor's inFlight (the thread is kept busy while merges commit); the run starts knowing its documents", async () => {
    const kgrag = await createKgrag({ env: {}, config: { workspace: root } });
    const here = new OfflineNlpExtractor();
    let running = 0;
    let most = 0;
    const runs: unknown[] = [];
    const extractor: Extractor = {
      kind: "offline-nlp",
      inFlight: 7,
      // Told the run's size although the documents reach extraction in batches.
      beginRun: (run) => runs.push(run),
      extract: async (chunk, context) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return here.extract(chunk, context);
      },
    };
    const sources: SourceDocument[] = Array.from({ length: 20 }, (_, i) => ({
      id: `doc-${i}`,
      title: `Note ${i}`,
      path: null,
      metadata: {},
      text: `Mara Okafor met Tomas Weber in Lisbon on day ${i}.`,
    }));
    try {
      await runIndexWorkflow(kgrag.services, { ...kgrag.components, extractor }, sources, {
        communities: false,
      });
      expect(most).toBe(7);
      expect(runs).toEqual([{ documents: 20 }]);
      expect((await kgrag.services.store.counts()).chunks).toBe(20);
    } finally {
      await kgrag.close();
    }
  });
});
