import neo4j from "neo4j-driver";
import { describe, expect, it } from "vitest";
import { relationshipKey } from "../../src/merge/keys.js";
import { DEFAULT_TUNING, Neo4jConnection, WRITE_BATCH_ROWS } from "../../src/storage/neo4j/connection.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import { ensureSchema } from "../../src/storage/neo4j/schema-setup.js";
import {
  EXACT_LIMIT,
  luceneQuery,
  SMALL_NAMESPACE,
  searchChunkText,
} from "../../src/storage/neo4j/search.js";
import type { GraphChanges } from "../../src/types.js";
import { one, ScriptedRunner, storeWith } from "../support/scripted-neo4j-runner.js";
import { makeChunk, makeDocument, makeEntity, makeRelationship } from "../support/storage-fixtures.js";

/**
 * Neo4j cannot run here, so these tests script the database side: they check what the adapter
 * sends (which statement, with which parameters, in which transaction) and how it reads answers.
 * Parameters are bound through the real cypher/ headers, so a call with a missing or misspelt
 * parameter fails here. What the server does with the statements is not tested (see docs/neo4j.md).
 */

const noChanges: GraphChanges = {
  upsertEntities: [],
  upsertRelationships: [],
  deleteEntityKeys: [],
  deleteRelationshipKeys: [],
  history: [],
};

describe("Neo4j store: workspace and parameters", () => {
  it("fills $workspace into every statement and passes the documented parameters", async () => {
    const { runner, store } = storeWith();
    await store.getMeta("embedding.model");
    await store.listEntities();
    expect(runner.calls.map((c) => c.params)).toEqual([
      { workspace: "team-a", key: "embedding.model" },
      { workspace: "team-a", needingSummary: false },
    ]);
  });

  it("sends counts and positions as Cypher INTEGER, not FLOAT", async () => {
    const { runner, store } = storeWith({ "store/document-set-chunk-count": one({ id: "d1" }) });
    await store.replaceDocumentChunks("d1", [makeChunk("d1", 3, "some text")]);
    const upsert = runner.calls.find((c) => c.name === "store/chunks-upsert");
    const [row] = (upsert?.params.rows ?? []) as { index: unknown; start: unknown }[];
    expect(neo4j.isInt(row?.index)).toBe(true);
    expect(neo4j.isInt(row?.start)).toBe(true);
  });
});

describe("Neo4j store: atomic writes", () => {
  it("replaces a document's chunks in one transaction, after checking the document exists", async () => {
    const { runner, store } = storeWith({ "store/document-set-chunk-count": one({ id: "d1" }) });
    await store.replaceDocumentChunks("d1", [makeChunk("d1", 0, "a"), makeChunk("d1", 1, "b")]);
    expect(runner.names("write")).toEqual([
      "store/document-set-chunk-count",
      "store/chunks-delete-others",
      "store/chunks-upsert",
      "store/chunks-link-sequence",
      "store/generation-bump",
    ]);
    expect(new Set(runner.calls.map((c) => c.tx))).toEqual(new Set([1]));
  });

  it("refuses chunks of an unknown document and writes nothing after the check", async () => {
    const { runner, store } = storeWith();
    await expect(store.replaceDocumentChunks("nope", [makeChunk("nope", 0, "a")])).rejects.toThrow(
      /unknown document "nope"/,
    );
    expect(runner.names()).toEqual(["store/document-set-chunk-count"]);
  });

  it("writes UNWIND batches of 1000 rows, all inside the one transaction", async () => {
    const { runner, store } = storeWith({ "store/document-set-chunk-count": one({ id: "d1" }) });
    const chunks = Array.from({ length: 2500 }, (_, i) => makeChunk("d1", i, `chunk ${i}`));
    await store.replaceDocumentChunks("d1", chunks);
    const batches = runner.calls.filter((c) => c.name === "store/chunks-upsert");
    expect(batches.map((c) => (c.params.rows as unknown[]).length)).toEqual([WRITE_BATCH_ROWS, 1000, 500]);
    expect(new Set(batches.map((c) => c.tx)).size).toBe(1);
  });

  it("sizes UNWIND batches by the connection's configured rows", async () => {
    const runner = new ScriptedRunner({ "store/document-set-chunk-count": one({ id: "d1" }) });
    const store = new Neo4jGraphStore(
      new Neo4jConnection(runner, "team-a", { ...DEFAULT_TUNING, writeBatchRows: 300 }),
    );
    const chunks = Array.from({ length: 700 }, (_, i) => makeChunk("d1", i, `chunk ${i}`));
    await store.replaceDocumentChunks("d1", chunks);
    const batches = runner.calls.filter((c) => c.name === "store/chunks-upsert");
    expect(batches.map((c) => (c.params.rows as unknown[]).length)).toEqual([300, 300, 100]);
  });

  it("registers a batch of documents in one transaction of UNWIND statements", async () => {
    const { runner, store } = storeWith();
    await store.registerDocuments([
      { document: makeDocument("d1"), chunks: [makeChunk("d1", 0, "a"), makeChunk("d1", 1, "b")] },
      { document: makeDocument("d2"), chunks: [makeChunk("d2", 0, "c")] },
    ]);
    expect(runner.names("write")).toEqual([
      "store/documents-upsert",
      "store/chunks-delete-others",
      "store/chunks-upsert",
      "store/chunks-link-sequence",
      "store/generation-bump",
    ]);
    expect(new Set(runner.calls.map((c) => c.tx))).toEqual(new Set([1]));
    const params = (name: string) => runner.calls.find((c) => c.name === name)?.params.rows as unknown[];
    expect(
      (params("store/documents-upsert") as { id: string; chunkCount: unknown }[]).map((d) => [
        d.id,
        d.chunkCount,
      ]),
    ).toEqual([
      ["d1", neo4j.int(2)],
      ["d2", neo4j.int(1)],
    ]);
    expect((params("store/chunks-upsert") as { docId: string }[]).map((c) => c.docId)).toEqual([
      "d1",
      "d1",
      "d2",
    ]);
    expect(params("store/chunks-link-sequence")).toEqual(["d1", "d2"]);
  });

  it("sets a batch of statuses in one statement and refuses the batch when a document is missing", async () => {
    const { runner, store } = storeWith({ "store/documents-set-status": one({ id: "d1" }) });
    await expect(
      store.setDocumentStatuses([
        { id: "d1", status: "processed", error: null },
        { id: "d2", status: "failed", error: "why" },
      ]),
    ).rejects.toThrow(/unknown document "d2"/);
    expect(runner.names("write")).toEqual(["store/documents-set-status"]);
    expect(runner.calls[0]?.params.rows).toEqual([
      { id: "d1", status: "processed", error: null },
      { id: "d2", status: "failed", error: "why" },
    ]);
  });

  it("commits a chunk merge in one transaction: mark, replace mentions, apply changes, prune anchors", async () => {
    const { runner, store } = storeWith({
      "store/counter-next": one({ first: 41 }),
      "store/chunks-mark-merged": (params) => (params.rows as { id: string }[]).map((r) => ({ id: r.id })),
      "store/mentions-clear-chunks": one({ entityKeys: ["old"] }),
    });
    const entity = makeEntity("Acme");
    await store.commitChunkMerge(
      "c1",
      {
        entities: [
          { entityKey: entity.key, chunkId: "c1", name: "Acme", type: "organization", description: "x" },
        ],
        relationships: [],
      },
      { ...noChanges, upsertEntities: [entity] },
    );
    expect(runner.names()).toEqual([
      "store/counter-next",
      "store/chunks-mark-merged",
      "store/mentions-clear-chunks",
      "store/entity-mentions-create",
      "store/entities-upsert",
      "store/entity-anchors-prune",
      "store/generation-bump",
    ]);
    expect(new Set(runner.calls.map((c) => c.tx)).size).toBe(1);
    expect(runner.calls[1]?.params.rows).toEqual([
      { id: "c1", mergeSeq: neo4j.int(41), status: "merged", error: null, rawOutput: null },
    ]);
    expect(runner.calls.find((c) => c.name === "store/entity-anchors-prune")?.params.keys).toEqual(["old"]);
  });

  it("commits several chunks in one transaction, numbering them and their mentions in order", async () => {
    const { runner, store } = storeWith({
      "store/counter-next": one({ first: 10 }),
      "store/chunks-mark-merged": (params) => (params.rows as { id: string }[]).map((r) => ({ id: r.id })),
    });
    const mention = (chunkId: string, name: string) => ({
      entityKey: name.toLowerCase(),
      chunkId,
      name,
      type: "t",
      description: "",
    });
    await store.commitChunkMerges(
      [
        {
          chunkId: "c1",
          mentions: { entities: [mention("c1", "A"), mention("c1", "B")], relationships: [] },
        },
        { chunkId: "c2", mentions: { entities: [mention("c2", "A")], relationships: [] } },
      ],
      noChanges,
    );
    expect(new Set(runner.calls.map((c) => c.tx)).size).toBe(1);
    expect(runner.calls.find((c) => c.name === "store/counter-next")?.params.count).toEqual(neo4j.int(2));
    const marked = runner.calls.find((c) => c.name === "store/chunks-mark-merged")?.params.rows as {
      mergeSeq: unknown;
    }[];
    expect(marked.map((r) => String(r.mergeSeq))).toEqual(["10", "11"]);
    const created = runner.calls.find((c) => c.name === "store/entity-mentions-create")?.params.rows as {
      chunkId: string;
      ord: unknown;
    }[];
    expect(created.map((r) => `${r.chunkId}#${r.ord}`)).toEqual(["c1#0", "c1#1", "c2#0"]);
  });

  it("sends a merge's statements after the counters without waiting for their answers", async () => {
    const runner = new ScriptedRunner({ "store/counter-next": one({ first: 1 }) });
    // Answers to data statements come only once the test releases them, as a slow server would.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const scripted = runner.write.bind(runner);
    runner.write = (work) =>
      scripted((run) =>
        work(async (statement) => {
          const answer = run(statement);
          if (statement.name !== "store/counter-next") await released;
          return answer;
        }),
      );
    const store = new Neo4jGraphStore(
      new Neo4jConnection(runner, "team-a", { ...DEFAULT_TUNING, writeBatchRows: 1 }),
    );
    const mention = (chunkId: string, name: string) => ({
      entityKey: name.toLowerCase(),
      chunkId,
      name,
      type: "t",
      description: "",
    });
    const committing = store.commitChunkMerge(
      "c1",
      { entities: [mention("c1", "A"), mention("c1", "B")], relationships: [] },
      { ...noChanges, upsertEntities: [makeEntity("A"), makeEntity("B")] },
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runner.names()).toEqual([
      "store/counter-next",
      "store/chunks-mark-merged",
      "store/mentions-clear-chunks",
      "store/entity-mentions-create",
      "store/entity-mentions-create",
      "store/entities-upsert",
      "store/entities-upsert",
    ]);
    release();
    // The scripted server knows no chunk c1: the commit fails once the answers arrive.
    await expect(committing).rejects.toThrow(/unknown chunk "c1"/);
  });

  it("fails the merge of an unknown chunk before writing any mention", async () => {
    const { runner, store } = storeWith({ "store/counter-next": one({ first: 1 }) });
    await expect(
      store.commitChunkMerge("ghost", { entities: [], relationships: [] }, noChanges),
    ).rejects.toThrow(/unknown chunk "ghost"/);
    expect(runner.names()).not.toContain("store/entity-mentions-create");
  });

  it("refuses mentions that belong to another chunk, before touching the database", async () => {
    const { runner, store } = storeWith();
    const mention = { entityKey: "a", chunkId: "other", name: "A", type: "t", description: "" };
    await expect(
      store.commitChunkMerge("c1", { entities: [mention], relationships: [] }, noChanges),
    ).rejects.toThrow(/mention of chunk "other"/);
    expect(runner.calls).toEqual([]);
  });

  it("reserves history numbers first, then applies deletes before upserts and prunes anchors last", async () => {
    const { runner, store } = storeWith({
      "store/relationships-delete": one({ endpointKeys: ["a", "b"] }),
      "store/counter-next": one({ first: 7 }),
    });
    const history = ["x", "y"].map((key) => ({
      kind: "entity" as const,
      key,
      action: "update" as const,
      oldDescription: null,
      newDescription: "d",
      cause: "summarize",
      at: "2024-01-01T00:00:00.000Z",
    }));
    await store.applyGraphChanges({
      upsertEntities: [makeEntity("A")],
      upsertRelationships: [makeRelationship("A", "B")],
      deleteEntityKeys: ["gone"],
      deleteRelationshipKeys: [relationshipKey("a", "b")],
      history,
    });
    expect(runner.names()).toEqual([
      "store/counter-next",
      "store/relationships-delete",
      "store/entities-delete",
      "store/entities-upsert",
      "store/relationships-upsert",
      "store/history-append",
      "store/entity-anchors-prune",
      "store/generation-bump",
    ]);
    const appended = runner.calls.find((c) => c.name === "store/history-append")?.params.rows as {
      seq: unknown;
      keys: string[];
      entriesJson: string;
    }[];
    expect(appended.map((r) => [String(r.seq), r.keys, JSON.parse(r.entriesJson)])).toEqual([
      ["7", ["x", "y"], history],
    ]);
  });

  it("keeps history in pages of historyPageEntries, each numbered by its first entry", async () => {
    const { runner, store } = storeWith({ "store/counter-next": one({ first: 7 }) }, undefined, {
      historyPageEntries: 2,
    });
    const history = ["x", "y", "x"].map((key, i) => ({
      kind: "entity" as const,
      key,
      action: "update" as const,
      oldDescription: null,
      newDescription: `d${i}`,
      cause: "summarize",
      at: "2024-01-01T00:00:00.000Z",
    }));
    await store.applyGraphChanges({ ...noChanges, history });
    const pages = runner.calls.find((c) => c.name === "store/history-append")?.params.rows as {
      seq: unknown;
      count: unknown;
      keys: string[];
      entriesJson: string;
    }[];
    expect(pages.map((p) => [String(p.seq), String(p.count), p.keys, JSON.parse(p.entriesJson)])).toEqual([
      ["7", "2", ["x", "y"], history.slice(0, 2)],
      ["9", "1", ["x"], history.slice(2)],
    ]);
  });

  it("lists history from pages (filtered to the key asked for) and from one-entry nodes of older kgrags", async () => {
    const entry = (key: string, newDescription: string) => ({
      kind: "entity" as const,
      key,
      action: "update" as const,
      oldDescription: null,
      newDescription,
      cause: "summarize",
      at: "2024-01-01T00:00:00.000Z",
    });
    const { store } = storeWith({
      "store/history-list": () => [
        { entries: null, entry: entry("x", "old") },
        { entries: JSON.stringify([entry("y", "a"), entry("x", "b")]), entry: null },
      ],
    });
    expect((await store.listHistory()).map((e) => e.newDescription)).toEqual(["old", "a", "b"]);
    expect((await store.listHistory("x")).map((e) => e.newDescription)).toEqual(["old", "b"]);
  });

  it("rejects a relationship that is not in canonical order", async () => {
    const { store } = storeWith();
    const rel = { ...makeRelationship("A", "B") };
    const swapped = { ...rel, sourceKey: rel.targetKey, targetKey: rel.sourceKey };
    await expect(store.applyGraphChanges({ ...noChanges, upsertRelationships: [swapped] })).rejects.toThrow(
      /not canonical/,
    );
  });

  it("deletes documents atomically and returns the affected keys sorted", async () => {
    const { runner, store } = storeWith({
      "store/mention-keys-of-documents": one({ entityKeys: ["b", "a"], relationshipKeys: ["r2", "r1"] }),
    });
    expect(await store.deleteDocuments(["d1"])).toEqual({
      entityKeys: ["a", "b"],
      relationshipKeys: ["r1", "r2"],
    });
    expect(runner.names()).toEqual([
      "store/mention-keys-of-documents",
      "store/documents-delete",
      "store/entity-anchors-prune",
      "store/generation-bump",
    ]);
    expect(new Set(runner.calls.map((c) => c.tx)).size).toBe(1);
  });
});

describe("Neo4j store: reads", () => {
  it("maps records back, parsing document metadata and community reports from JSON", async () => {
    const doc = makeDocument("d1", { metadata: { year: 2020, team: "x" } });
    const report = {
      title: "T",
      summary: "S",
      rating: 5,
      ratingExplanation: "",
      findings: [],
      markdown: "# T",
      method: "extractive" as const,
    };
    const { store } = storeWith({
      "store/documents-get": one({
        document: { ...doc, metadataJson: JSON.stringify(doc.metadata), metadata: null },
      }),
      "store/communities-list": one({
        community: {
          id: "c0-1",
          level: 0,
          parentId: null,
          childIds: null,
          entityKeys: ["a"],
          contentHash: "h",
          reportJson: JSON.stringify(report),
          reportHash: "h",
        },
      }),
    });
    expect(await store.getDocument("d1")).toEqual(doc);
    // Concurrent reads share one statement; an unknown id is simply absent.
    const [again, unknown] = await Promise.all([store.getDocument("d1"), store.getDocument("d2")]);
    expect([again, unknown]).toEqual([doc, undefined]);
    expect(await store.listCommunities()).toEqual([
      {
        id: "c0-1",
        level: 0,
        parentId: null,
        childIds: [],
        entityKeys: ["a"],
        contentHash: "h",
        report,
        reportHash: "h",
      },
    ]);
  });

  it("answers concurrent entity reads with one statement, each caller with its own copy", async () => {
    const entity = (key: string) => ({ ...makeEntity(key), aliases: [] });
    const { runner, store } = storeWith({
      "store/entities-get": (params) =>
        (params.keys as string[]).filter((key) => key !== "nobody").map((key) => ({ entity: entity(key) })),
    });
    const [[a], [b], [again], unknown] = await Promise.all([
      store.getEntities(["a"]),
      store.getEntities(["b"]),
      store.getEntities(["a"]),
      store.getEntities(["nobody"]),
    ]);
    expect(runner.names().filter((n) => n === "store/entities-get")).toHaveLength(1);
    expect(runner.calls.find((c) => c.name === "store/entities-get")?.params.keys).toEqual([
      "a",
      "b",
      "nobody",
    ]);
    expect([a?.key, b?.key, again?.key, unknown]).toEqual(["a", "b", "a", []]);
    expect(again).toEqual(a);
    expect(again).not.toBe(a);
  });

  it("takes and gives back the writer lease without bumping the write generation", async () => {
    const { runner, store } = storeWith({
      "store/writer-lease-acquire": one({ acquired: true, owner: "me", pid: 1, host: "h" }),
    });
    await store.withWriterLease(() => store.setMeta("k", "v"));
    const transactions = new Map<number, string[]>();
    for (const call of runner.calls.filter((c) => c.kind === "write"))
      transactions.set(call.tx, [...(transactions.get(call.tx) ?? []), call.name]);
    expect([...transactions.values()]).toEqual([
      ["store/writer-lease-acquire"],
      ["store/meta-set", "store/generation-bump"],
      ["store/writer-lease-release"],
    ]);
  });

  it("names the record when Neo4j returns a malformed one", async () => {
    const { store } = storeWith({ "store/entities-list": one({ entity: { key: "a" } }) });
    await expect(store.listEntities()).rejects.toThrow(/malformed entity/);
  });

  it("serves whole-workspace reads again while the write generation is unchanged", async () => {
    let generation = "g1";
    const { runner, store } = storeWith(
      {
        "store/generation-get": () => [{ generation }],
        "store/vectors/communities/hashes": () => [{ id: "c1", textHash: "h1" }],
      },
      0,
    );
    const reads = () => runner.names().filter((n) => n === "store/vectors/communities/hashes").length;
    const hashes = await store.vectorHashes("communities");
    expect(hashes).toEqual(new Map([["c1", "h1"]]));
    // A caller changing what it got does not change what the next caller gets.
    hashes.clear();
    expect(await store.vectorHashes("communities")).toEqual(new Map([["c1", "h1"]]));
    expect(reads()).toBe(1);
    // Another process wrote: the generation moved, so the rows are read again.
    generation = "g2";
    await store.vectorHashes("communities");
    expect(reads()).toBe(2);
    // This process wrote: read again even before its new generation is seen.
    await store.setMeta("k", "v");
    await store.vectorHashes("communities");
    expect(reads()).toBe(3);
    expect(runner.names("write")).toEqual(["store/meta-set", "store/generation-bump"]);
  });

  it("reuses a generation read for a moment, and forgets it when this process writes", async () => {
    let generation = "g1";
    const { runner, store } = storeWith({
      "store/generation-get": () => [{ generation }],
      "store/vectors/communities/hashes": () => [{ id: "c1", textHash: generation }],
    });
    const generationReads = () => runner.names().filter((n) => n === "store/generation-get").length;
    await store.vectorHashes("communities");
    await store.vectorHashes("communities");
    expect(generationReads()).toBe(1);
    generation = "g2";
    await store.setMeta("k", "v");
    expect(await store.vectorHashes("communities")).toEqual(new Map([["c1", "g2"]]));
    expect(generationReads()).toBe(2);
  });

  it("resolves metadata scopes to document ids before asking for chunk ids", async () => {
    const docs = [
      makeDocument("d1", { metadata: { year: 2020 } }),
      makeDocument("d2", { metadata: { year: 2021 } }),
    ].map((d) => ({ document: { ...d, metadataJson: JSON.stringify(d.metadata), metadata: null } }));
    const { runner, store } = storeWith({
      "store/documents-list": () => docs,
      "store/chunk-ids-in-scope": () => [{ id: "d2:c" }],
    });
    expect(await store.chunkIdsInScope({ metadata: { year: "2021" } })).toEqual(new Set(["d2:c"]));
    expect(runner.calls.at(-1)?.params.docIds).toEqual(["d2"]);
    expect(await store.chunkIdsInScope({ docIds: ["d1"], metadata: { year: "2021" } })).toEqual(new Set());
  });
});

/** Record totals as the cached counts report them. */
const countsOf = (chunks: number, others: { entities?: number; relationships?: number } = {}) =>
  one({
    documents: 1,
    chunks,
    entities: others.entities ?? 0,
    relationships: others.relationships ?? 0,
    communities: 0,
    failedDocuments: 0,
    failedChunks: 0,
    partialChunks: 0,
  });

describe("Neo4j store: vector search", () => {
  // Too many chunks to rank in memory: these tests are about the server's side.
  const stored = (dimension: number | null, count = 4) => ({
    "store/counts": countsOf(100_000_000),
    "store/vectors/chunks/stats": one({ count, dimension }),
  });
  const vectorStatements = (names: string[]) =>
    names.filter((n) => !/generation-get|counts|meta-get/.test(n));

  it("ranks a namespace that fits in memory there, exactly, reading its vectors once per generation", async () => {
    const { runner, store } = storeWith({
      "store/generation-get": one({ generation: "g1" }),
      "store/counts": countsOf(3),
      "store/vectors/chunks/stats": one({ count: 3, dimension: 2 }),
      "store/vectors/chunks/all": () => [
        { id: "a", vector: [1, 0] },
        { id: "b", vector: [1, 1] },
        { id: "c", vector: [0, 1] },
      ],
    });
    const hits = await store.searchVectors("chunks", [2, 0.2], 2);
    expect(hits.map((h) => h.id)).toEqual(["a", "b"]);
    expect(hits[0]!.score).toBeCloseTo(2 / Math.hypot(2, 0.2), 5);
    expect((await store.searchVectors("chunks", [1, 0], 5, new Set(["c"]))).map((h) => h.id)).toEqual(["c"]);
    expect(await store.searchVectors("chunks", [0, 0], 5)).toEqual([]);
    await expect(store.searchVectors("chunks", [1, 0, 0], 5)).rejects.toThrow(/3 dimensions/);
    expect(runner.names().filter((n) => n === "store/vectors/chunks/all")).toHaveLength(1);
  });

  it("ranks on the server a namespace of more floats than neo4j.inMemoryVectorFloats", async () => {
    const { runner, store } = storeWith(
      {
        "store/generation-get": one({ generation: "g1" }),
        "store/counts": countsOf(3),
        "store/vectors/chunks/stats": one({ count: 3, dimension: 2 }),
        "store/vectors/chunks/exact-all": () => [{ id: "a", score: 1 }],
      },
      undefined,
      { inMemoryVectorFloats: 5 },
    );
    expect(await store.searchVectors("chunks", [1, 0], 2)).toEqual([{ id: "a", score: 1 }]);
    expect(runner.names()).not.toContain("store/vectors/chunks/all");
    expect(runner.names()).toContain("store/vectors/chunks/exact-all");
  });

  it("ranks a small allow list exactly and converts Neo4j's [0, 1] cosine back to cosine", async () => {
    const { runner, store } = storeWith({
      ...stored(2),
      "store/vectors/chunks/exact-allowed": () => [
        { id: "a", score: 1 },
        { id: "b", score: 0.5 },
      ],
    });
    expect(await store.searchVectors("chunks", [1, 0], 5, new Set(["a", "b"]))).toEqual([
      { id: "a", score: 1 },
      { id: "b", score: 0 },
    ]);
    expect(runner.calls.at(-1)?.params.ids).toEqual(["a", "b"]);
  });

  it("returns nothing when no vector is stored, and refuses a query of another dimension", async () => {
    expect(await storeWith(stored(null, 0)).store.searchVectors("chunks", [1, 0], 5)).toEqual([]);
    await expect(storeWith(stored(3)).store.searchVectors("chunks", [1, 0], 5)).rejects.toThrow(
      /2 dimensions but the "chunks" vectors have 3/,
    );
  });

  it("ranks a small namespace exactly, without the index", async () => {
    const { runner, store } = storeWith({
      ...stored(2, SMALL_NAMESPACE),
      "store/vectors/chunks/exact-all": () => [],
    });
    await store.searchVectors("chunks", [1, 0], 5);
    expect(vectorStatements(runner.names())).toEqual([
      "store/vectors/chunks/stats",
      "store/vectors/chunks/exact-all",
    ]);
  });

  it("falls back to exact ranking when the vector index is missing", async () => {
    const { runner, store } = storeWith({
      ...stored(2, SMALL_NAMESPACE + 1),
      "store/vectors/chunks/exact-all": () => [],
    });
    await store.searchVectors("chunks", [1, 0], 5);
    expect(runner.names()).toContain("schema/show-vector-index");
    expect(runner.names().at(-1)).toBe("store/vectors/chunks/exact-all");
  });

  it("over-fetches from the shared index until enough hits of this workspace survive", async () => {
    const big = new Set(Array.from({ length: EXACT_LIMIT + 1 }, (_, i) => `id${i}`));
    const { runner, store } = storeWith({
      ...stored(2, EXACT_LIMIT + 1),
      "schema/show-vector-index": one({ name: "kgrag_chunk_embedding", state: "ONLINE", dimension: 2 }),
      "store/vectors/chunks/ann": (params, call) => {
        const fetch = Number(params.fetch);
        const matches =
          call === 0
            ? [{ id: "id1", score: 0.9 }]
            : [
                { id: "id1", score: 0.9 },
                { id: "id2", score: 0.8 },
              ];
        return [{ fetched: fetch, matches }];
      },
    });
    const hits = await store.searchVectors("chunks", [1, 0], 2, big);
    expect(hits.map((h) => h.id)).toEqual(["id1", "id2"]);
    const fetches = runner.calls
      .filter((c) => c.name === "store/vectors/chunks/ann")
      .map((c) => Number(c.params.fetch));
    expect(fetches).toEqual([50, 200]);
  });

  it("ranks an allow list exactly only while it is a small share of the namespace", async () => {
    const allowed = new Set(Array.from({ length: 600 }, (_, i) => `id${i}`));
    const online = one({ name: "kgrag_chunk_embedding", state: "ONLINE", dimension: 2 });
    const answers = {
      "schema/show-vector-index": online,
      "store/vectors/chunks/ann": () => [{ fetched: 1, matches: [{ id: "id1", score: 0.9 }] }],
      "store/vectors/chunks/exact-allowed": () => [],
    };
    const wide = storeWith({ ...stored(2, SMALL_NAMESPACE + 100), ...answers });
    await wide.store.searchVectors("chunks", [1, 0], 1, allowed);
    expect(wide.runner.names().at(-1)).toBe("store/vectors/chunks/ann");
    const narrow = storeWith({ ...stored(2, 5000), ...answers });
    await narrow.store.searchVectors("chunks", [1, 0], 1, allowed);
    expect(narrow.runner.names().at(-1)).toBe("store/vectors/chunks/exact-allowed");
  });

  it("checks the dimension of new vectors against the stored ones", async () => {
    const { store } = storeWith(stored(3));
    await expect(store.upsertVectors("chunks", [{ id: "a", vector: [1, 0], textHash: "h" }])).rejects.toThrow(
      /has 2 dimensions but the vectors already stored/,
    );
  });

  it("sets relationship vectors on their edges by key, and anchors only the keys with no edge", async () => {
    const found = relationshipKey("a", "b");
    const missing = relationshipKey("c", "d");
    const { runner, store } = storeWith({
      "store/counts": countsOf(0, { relationships: 2 }),
      "store/vectors/relationships/set-on-edges": (params) =>
        (params.rows as { id: string }[]).filter((row) => row.id === found).map((row) => ({ id: row.id })),
    });
    await store.upsertVectors("relationships", [
      { id: found, vector: [1, 0], textHash: "h1" },
      { id: missing, vector: [0, 1], textHash: "h2" },
    ]);
    const set = runner.calls.find((c) => c.name === "store/vectors/relationships/set-on-edges");
    const upsert = runner.calls.find((c) => c.name === "store/vectors/relationships/upsert");
    expect(((set?.params.rows ?? []) as { id: string }[]).map((r) => r.id)).toEqual([found, missing]);
    expect(upsert?.params.rows).toEqual([
      { id: missing, vector: [0, 1], textHash: "h2", norm: 1, sourceKey: "c", targetKey: "d" },
    ]);
    expect(upsert?.tx).toBe(set?.tx);
  });

  it("creates the vector index once a namespace is too large to rank in memory, with its dimension", async () => {
    // 2 floats per vector, 3 in memory: the namespace's two relationships do not fit.
    const { runner, store } = storeWith({ "store/counts": countsOf(0, { relationships: 2 }) }, undefined, {
      inMemoryVectorFloats: 3,
    });
    await store.upsertVectors("relationships", [
      { id: relationshipKey("a", "b"), vector: [3, 4], textHash: "h" },
    ]);
    const upsert = runner.calls.find((c) => c.name === "store/vectors/relationships/upsert");
    expect(upsert?.params.rows).toEqual([
      {
        id: relationshipKey("a", "b"),
        vector: [3, 4],
        textHash: "h",
        norm: 5,
        sourceKey: "a",
        targetKey: "b",
      },
    ]);
    const created = runner.calls.find((c) => c.name === "schema/vector-index-relationships");
    expect(created?.params).toEqual({
      dimension: neo4j.int(2),
      m: neo4j.int(16),
      efConstruction: neo4j.int(100),
    });
    expect(runner.names("schema")).toContain("schema/await-index");
  });

  it("keeps no vector index for a namespace ranked in memory, and reads its size once while it fits", async () => {
    // 2 floats per vector, 10 in memory: up to 5 vectors fit.
    const { runner, store } = storeWith(
      {
        "store/counts": countsOf(0, { entities: 2 }),
        "store/vectors/entities/stats": one({ count: 2, dimension: 2 }),
      },
      undefined,
      { inMemoryVectorFloats: 10 },
    );
    const vector = (id: string) => ({ id, vector: [1, 0], textHash: "h" });
    await store.upsertVectors("entities", [vector("a"), vector("b")]);
    await store.upsertVectors("entities", [vector("c")]);
    // The stored vectors are counted as far as memory takes (5 vectors, so up to 6).
    const sizeReads = () =>
      runner.calls.filter((c) => c.name === "store/vectors/entities/stats" && Number(c.params.limit) === 6);
    expect(runner.names()).not.toContain("schema/vector-index-entities");
    expect(sizeReads()).toHaveLength(1);
    // The bound (2 stored + 1 written, then 3 more) passes 5: the size is read again, and still fits.
    await store.upsertVectors("entities", [vector("a"), vector("b"), vector("c")]);
    expect(sizeReads()).toHaveLength(2);
    expect(runner.names()).not.toContain("schema/vector-index-entities");
  });

  describe("the hashing embedder's vectors", () => {
    // The workspace's embedding kind, as the embedding guard records it.
    const hashing = (key: unknown) => (key === "embedding.kind" ? [{ value: "hashing" }] : []);

    it("are ranked in memory and get no index however many there are", async () => {
      const { runner, store } = storeWith(
        {
          "store/generation-get": one({ generation: "g1" }),
          "store/meta-get": (params) => hashing(params.key),
          "store/counts": countsOf(0, { relationships: 3 }),
          "store/vectors/relationships/stats": one({ count: 3, dimension: 2 }),
          "store/vectors/relationships/all": () => [
            { id: "a", vector: [1, 0] },
            { id: "b", vector: [1, 1] },
            { id: "c", vector: [0, 1] },
          ],
        },
        undefined,
        // 2 floats per vector, 3 in memory: a model's vectors would go to the server's index.
        { inMemoryVectorFloats: 3 },
      );
      await store.upsertVectors("relationships", [
        { id: relationshipKey("a", "b"), vector: [3, 4], textHash: "h" },
      ]);
      expect(runner.names("schema")).not.toContain("schema/vector-index-relationships");
      const hits = await store.searchVectors("relationships", [2, 0.2], 2);
      expect(hits.map((h) => h.id)).toEqual(["a", "b"]);
      expect(runner.names()).not.toContain("store/vectors/relationships/ann");
      expect(runner.names()).not.toContain("store/vectors/relationships/exact-all");
    });

    it("are treated like a model's with neo4j.hashingVectorsInMemory off", async () => {
      const { runner, store } = storeWith(
        {
          "store/meta-get": (params) => hashing(params.key),
          "store/counts": countsOf(0, { relationships: 2 }),
        },
        undefined,
        { inMemoryVectorFloats: 3, hashingVectorsInMemory: false },
      );
      await store.upsertVectors("relationships", [
        { id: relationshipKey("a", "b"), vector: [3, 4], textHash: "h" },
      ]);
      expect(runner.names("schema")).toContain("schema/vector-index-relationships");
      expect(runner.names()).not.toContain("store/meta-get");
    });

    it("reads the workspace's embedding kind once, not at every vector write", async () => {
      const model = (key: unknown) => (key === "embedding.kind" ? [{ value: "openai" }] : []);
      const { runner, store } = storeWith(
        {
          "store/generation-get": one({ generation: "g1" }),
          "store/meta-get": (params) => model(params.key),
          "store/counts": countsOf(0, { relationships: 2 }),
        },
        undefined,
        { inMemoryVectorFloats: 1_000 },
      );
      for (const id of ["a", "b", "c"]) {
        await store.upsertVectors("relationships", [
          { id: relationshipKey(id, "z"), vector: [3, 4], textHash: "h" },
        ]);
      }
      expect(runner.names().filter((n) => n === "store/meta-get")).toHaveLength(1);
    });
  });

  it("creates the index when the stored vectors outgrow memory, even before their records", async () => {
    const { runner, store } = storeWith(
      {
        "store/counts": countsOf(0),
        "store/vectors/entities/stats": one({ count: 6, dimension: 2 }),
      },
      undefined,
      { inMemoryVectorFloats: 10, vectorIndexM: 8, vectorIndexEfConstruction: 40 },
    );
    await store.upsertVectors("entities", [{ id: "a", vector: [1, 0], textHash: "h" }]);
    const created = runner.calls.find((c) => c.name === "schema/vector-index-entities");
    expect(created?.params).toEqual({
      dimension: neo4j.int(2),
      m: neo4j.int(8),
      efConstruction: neo4j.int(40),
    });
  });
});

describe("Neo4j store: full-text search", () => {
  it("escapes Lucene syntax, drops stop words and punctuation, and ORs the words", () => {
    expect(luceneQuery('What is "kgrag"? (graph: RAG) AND more')).toBe(
      'what OR \\"kgrag\\"\\? OR \\(graph\\: OR rag\\) OR more',
    );
    expect(luceneQuery("  \n ")).toBeNull();
    expect(luceneQuery('") OR (')).toBeNull();
    expect(luceneQuery("?!*()\"'")).toBeNull();
  });

  it("cuts Chinese into the bigrams the CJK analyzer indexes", () => {
    expect(luceneQuery("杭州在哪里？")).toBe("杭州 OR 州在 OR 在哪 OR 哪里");
    expect(luceneQuery("深圳 Tencent总部")).toBe("深圳 OR 总部 OR tencent");
    expect(luceneQuery("京")).toBe("京");
  });

  it("weights entity names five times their descriptions", async () => {
    const { runner, store } = storeWith({ "store/fulltext-entities": one({ fetched: 1, matches: [] }) });
    await store.searchEntityText("acme corp", 3);
    expect(runner.calls[0]?.params.query).toBe(
      "name:(acme OR corp)^5 OR aliases:(acme OR corp)^5 OR description:(acme OR corp)",
    );
  });

  it("stops asking for more hits once the index has no more", async () => {
    const { runner, store } = storeWith({
      "store/fulltext-chunks": one({ fetched: 3, matches: [{ id: "c1", score: 2.5 }] }),
    });
    expect(await searchChunkText(store.connection, "graph", 10, new Set(["c1"]))).toEqual([
      { id: "c1", score: 2.5 },
    ]);
    expect(runner.calls).toHaveLength(1);
  });
});

describe("Neo4j schema setup", () => {
  it("creates constraints and indexes once per database, then waits for the full-text indexes", async () => {
    const runner = new ScriptedRunner();
    const connection = new Neo4jConnection(runner, "w");
    await ensureSchema(connection);
    const names = runner.names("schema");
    // The retired indexes go first: the unstemmed relationship index (replaced by
    // kgrag_relationship_terms) and the entity index without aliases (replaced by kgrag_entity_names).
    expect(names.slice(0, 2)).toEqual(["schema/retired-indexes#1", "schema/retired-indexes#2"]);
    expect(names.filter((n) => n.startsWith("schema/constraints#")).length).toBe(8);
    expect(names.filter((n) => n.startsWith("schema/fulltext-indexes#")).length).toBe(3);
    expect(runner.calls.filter((c) => c.name === "schema/await-index").map((c) => c.params.name)).toEqual([
      "kgrag_chunk_text",
      "kgrag_entity_names",
      "kgrag_relationship_terms",
    ]);
    await ensureSchema(new Neo4jConnection(runner, "another-workspace"));
    expect(runner.names("schema")).toHaveLength(names.length);
  });
});
