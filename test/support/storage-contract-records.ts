import { expect, it } from "vitest";
import { entityKey } from "../../src/merge/keys.js";
import type { CommunityRecord, CommunityReport } from "../../src/types.js";
import {
  changes,
  historyEntry,
  makeChunk,
  makeDocument,
  mergeChunk,
  type StoreOf,
  seedDocument,
  sortedIds,
} from "./storage-fixtures.js";

export function describeMetaAndDocuments(storeOf: StoreOf): void {
  it("round-trips workspace meta values", async () => {
    const store = storeOf();
    expect(await store.getMeta("embedding.model")).toBeUndefined();
    await store.setMeta("embedding.model", "hashing");
    await store.setMeta("embedding.model", "text-embedding-3-small");
    expect(await store.getMeta("embedding.model")).toBe("text-embedding-3-small");
  });

  it("upserts, reads, lists and updates documents", async () => {
    const store = storeOf();
    const doc = makeDocument("d1", {
      path: "/tmp/d1.txt",
      metadata: { lang: "en", year: 2020, draft: true },
    });
    await store.upsertDocument(doc);
    await store.upsertDocument(makeDocument("d2"));
    expect(await store.getDocument("d1")).toEqual(doc);
    expect(await store.getDocument("missing")).toBeUndefined();

    await store.upsertDocument({ ...doc, title: "Renamed", status: "processing" });
    expect((await store.getDocument("d1"))?.title).toBe("Renamed");
    expect(sortedIds(await store.listDocuments())).toEqual(["d1", "d2"]);
  });

  it("upserts several documents in one call", async () => {
    const store = storeOf();
    await store.upsertDocument(makeDocument("d1"));
    const moved = { ...makeDocument("d1"), path: "/moved/d1.txt", metadata: { source: "/moved/d1.txt" } };
    await store.upsertDocuments([moved, makeDocument("d2")]);
    expect(await store.getDocument("d1")).toEqual(moved);
    expect(sortedIds(await store.listDocuments())).toEqual(["d1", "d2"]);
    await store.upsertDocuments([]);
  });

  it("sets document status with and without an error", async () => {
    const store = storeOf();
    await store.upsertDocument(makeDocument("d1"));
    await store.setDocumentStatus("d1", "failed", "empty document");
    expect(await store.getDocument("d1")).toMatchObject({ status: "failed", error: "empty document" });
    expect((await store.counts()).failedDocuments).toBe(1);
    await store.setDocumentStatus("d1", "processed", null);
    expect(await store.getDocument("d1")).toMatchObject({ status: "processed", error: null });
  });

  it("sets several documents' statuses in one call, and none of them when one document is unknown", async () => {
    const store = storeOf();
    await store.upsertDocument(makeDocument("d1"));
    await store.upsertDocument(makeDocument("d2"));
    await store.setDocumentStatuses([
      { id: "d1", status: "processed", error: null },
      { id: "d2", status: "failed", error: "2 of 3 chunks not fully merged" },
    ]);
    expect(await store.getDocument("d1")).toMatchObject({ status: "processed", error: null });
    expect(await store.getDocument("d2")).toMatchObject({
      status: "failed",
      error: "2 of 3 chunks not fully merged",
    });

    await expect(
      store.setDocumentStatuses([
        { id: "d1", status: "failed", error: "late failure" },
        { id: "missing", status: "processed", error: null },
      ]),
    ).rejects.toThrow(/unknown document "missing"/);
    expect(await store.getDocument("d1")).toMatchObject({ status: "processed", error: null });
    await store.setDocumentStatuses([]);
  });
}

export function describeChunks(storeOf: StoreOf): void {
  it("stores a document's chunks in order, all pending", async () => {
    const store = storeOf();
    const chunks = await seedDocument(store, "d1", ["alpha text", "beta text", "gamma text"]);
    await seedDocument(store, "d2", ["delta text"]);
    expect(await store.listChunks("d1")).toEqual(chunks);
    expect(await store.getChunks([chunks[2]!.id, chunks[0]!.id])).toHaveLength(2);
    expect((await store.listChunks()).length).toBe(4);
    const states = await store.getChunkStates("d1");
    expect(states.map((s) => [s.chunkId, s.docId, s.status])).toEqual(
      chunks.map((c) => [c.id, "d1", "pending"]),
    );
    expect((await store.getDocument("d1"))?.chunkCount).toBe(3);
  });

  it("keeps the state and mentions of unchanged chunks when a document is re-chunked", async () => {
    const store = storeOf();
    const [kept, removed, failed] = await seedDocument(store, "d1", [
      "kept words",
      "zebra words",
      "failed words",
    ]);
    await mergeChunk(store, kept!.id, ["Kept Org"]);
    await mergeChunk(store, removed!.id, ["Zebra Org"]);
    await store.markChunkFailed(failed!.id, "unparseable output", "{not json");
    await store.upsertVectors("chunks", [
      { id: kept!.id, vector: [1, 0], textHash: "k" },
      { id: removed!.id, vector: [0, 1], textHash: "r" },
    ]);

    const added = makeChunk("d1", 0, "added words");
    await store.replaceDocumentChunks("d1", [added, { ...kept!, index: 1 }, { ...failed!, index: 2 }]);

    const states = new Map((await store.getChunkStates("d1")).map((s) => [s.chunkId, s]));
    expect([...states.keys()].sort()).toEqual([added.id, kept!.id, failed!.id].sort());
    expect(states.get(kept!.id)?.status).toBe("merged");
    expect(states.get(added.id)?.status).toBe("pending");
    expect(states.get(failed!.id)).toMatchObject({ status: "failed", rawOutput: "{not json" });
    expect((await store.listChunks("d1")).map((c) => c.id)).toEqual([added.id, kept!.id, failed!.id]);
    expect((await store.getChunkMentions([kept!.id])).entities).toHaveLength(1);
    expect((await store.getChunkMentions([removed!.id])).entities).toEqual([]);
    expect(await store.getEntityMentions([entityKey("Zebra Org")])).toEqual([]);
    expect(await store.searchChunkText("zebra", 5)).toEqual([]);
    expect([...(await store.vectorHashes("chunks")).keys()]).toEqual([kept!.id]);
  });

  it("registers several documents and their chunks in one call, as upsert then replace would", async () => {
    const store = storeOf();
    const [kept, dropped] = await seedDocument(store, "d1", ["kept words", "dropped zebra words"]);
    await mergeChunk(store, kept!.id, ["Kept Org"]);
    const added = makeChunk("d1", 1, "added words");
    const d2Chunks = ["first of two", "second of two"].map((text, i) => makeChunk("d2", i, text));
    const d1 = makeDocument("d1", { title: "Renamed", status: "processing" });
    const d2 = makeDocument("d2", { status: "processing", chunkCount: 99 });

    await store.registerDocuments([
      { document: d1, chunks: [{ ...kept!, index: 0 }, added] },
      { document: d2, chunks: d2Chunks },
      { document: makeDocument("d3", { status: "failed", error: "empty" }), chunks: [] },
    ]);

    expect(await store.getDocument("d1")).toEqual({ ...d1, chunkCount: 2 });
    expect(await store.getDocument("d2")).toEqual({ ...d2, chunkCount: 2 });
    expect(await store.getDocument("d3")).toMatchObject({ status: "failed", error: "empty", chunkCount: 0 });
    expect((await store.listChunks("d1")).map((c) => c.id)).toEqual([kept!.id, added.id]);
    expect(await store.listChunks("d2")).toEqual(d2Chunks);
    const states = new Map((await store.getChunkStates()).map((s) => [s.chunkId, s.status]));
    expect(Object.fromEntries(states)).toEqual({
      [kept!.id]: "merged",
      [added.id]: "pending",
      [d2Chunks[0]!.id]: "pending",
      [d2Chunks[1]!.id]: "pending",
    });
    expect((await store.getChunkMentions([kept!.id])).entities).toHaveLength(1);
    expect(states.has(dropped!.id)).toBe(false);
    expect(await store.searchChunkText("zebra", 5)).toEqual([]);
    expect((await store.searchChunkText("second", 5)).map((h) => h.id)).toEqual([d2Chunks[1]!.id]);
  });

  it("registers none of a batch when one document's chunks are refused", async () => {
    const store = storeOf();
    await expect(
      store.registerDocuments([
        { document: makeDocument("d1"), chunks: [makeChunk("d1", 0, "fine words")] },
        { document: makeDocument("d2"), chunks: [makeChunk("d3", 0, "stray words")] },
      ]),
    ).rejects.toThrow(/belongs to document "d3", not "d2"/);
    expect(await store.listDocuments()).toEqual([]);
    expect(await store.listChunks()).toEqual([]);
  });

  it("marks a chunk failed with its error and raw output", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["some text"]);
    await store.markChunkFailed(chunk!.id, "bad json", "raw model output");
    expect(await store.getChunkStates("d1")).toEqual([
      { chunkId: chunk!.id, docId: "d1", status: "failed", error: "bad json", rawOutput: "raw model output" },
    ]);
    expect((await store.counts()).failedChunks).toBe(1);
  });

  it("marks a chunk merged from a cut-short answer partial, and merged once merged in full", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["some text"]);
    const id = chunk!.id;
    const partial = { error: "partial extraction: cut short", rawOutput: '{"entities": [{"na' };
    await store.commitChunkMerges(
      [{ chunkId: id, mentions: { entities: [], relationships: [] }, partial }],
      changes(),
    );
    expect(await store.getChunkStates("d1")).toEqual([
      { chunkId: id, docId: "d1", status: "partial", error: partial.error, rawOutput: partial.rawOutput },
    ]);
    await store.commitChunkMerges(
      [{ chunkId: id, mentions: { entities: [], relationships: [] } }],
      changes(),
    );
    expect(await store.getChunkStates("d1")).toEqual([
      { chunkId: id, docId: "d1", status: "merged", error: null, rawOutput: null },
    ]);
  });
}

export function describeCommunitiesCacheHistory(storeOf: StoreOf): void {
  const report: CommunityReport = {
    title: "Acme cluster",
    summary: "Acme and friends.",
    rating: 6,
    ratingExplanation: "Moderate.",
    findings: [{ summary: "Acme hires", explanation: "Acme hired Bob." }],
    markdown: "# Acme cluster",
    method: "extractive",
  };
  const community = (id: string, level: number, parentId: string | null): CommunityRecord => ({
    id,
    level,
    parentId,
    childIds: [],
    entityKeys: [`${id}-member`],
    contentHash: `hash-${id}`,
    report: null,
    reportHash: null,
  });

  it("replaces the community hierarchy and saves reports", async () => {
    const store = storeOf();
    const root = { ...community("c0-1", 0, null), childIds: ["c1-1", "c1-2"] };
    await store.replaceCommunities([root, community("c1-1", 1, "c0-1"), community("c1-2", 1, "c0-1")]);
    await store.saveCommunityReport("c1-1", report, "hash-c1-1");
    const stored = await store.listCommunities();
    expect(sortedIds(stored)).toEqual(["c0-1", "c1-1", "c1-2"]);
    expect(stored.find((c) => c.id === "c0-1")).toEqual(root);
    expect(stored.find((c) => c.id === "c1-1")).toMatchObject({ report, reportHash: "hash-c1-1" });
    expect((await store.counts()).communities).toBe(3);

    await store.replaceCommunities([{ ...community("c0-9", 0, null), report, reportHash: "hash-c0-9" }]);
    expect(await store.listCommunities()).toEqual([
      { ...community("c0-9", 0, null), report, reportHash: "hash-c0-9" },
    ]);
    await expect(store.saveCommunityReport("c1-1", report, "x")).rejects.toThrow();
  });

  it("saves several reports in one call, all or none", async () => {
    const store = storeOf();
    await store.replaceCommunities([community("c0-1", 0, null), community("c0-2", 0, null)]);
    await store.saveCommunityReports([
      { id: "c0-1", report, reportHash: "h1" },
      { id: "c0-2", report: { ...report, title: "Second" }, reportHash: "h2" },
    ]);
    const saved = await store.listCommunities();
    expect(saved.find((c) => c.id === "c0-1")).toMatchObject({ report, reportHash: "h1" });
    expect(saved.find((c) => c.id === "c0-2")?.report?.title).toBe("Second");
    await expect(
      store.saveCommunityReports([
        { id: "c0-1", report: null, reportHash: "h3" },
        { id: "c9-9", report, reportHash: "h4" },
      ]),
    ).rejects.toThrow(/unknown community "c9-9"/);
    expect((await store.listCommunities()).find((c) => c.id === "c0-1")).toMatchObject({
      report,
      reportHash: "h1",
    });
  });

  it("caches LLM answers by stage, model and prompt hash", async () => {
    const store = storeOf();
    const entry = {
      stage: "extract",
      model: "m1",
      promptHash: "p1",
      response: "{}",
      promptTokens: 10,
      completionTokens: 2,
    };
    expect(await store.getLlmCache("extract", "m1", "p1")).toBeUndefined();
    await store.putLlmCache(entry);
    expect(await store.getLlmCache("extract", "m1", "p1")).toEqual(entry);
    expect(await store.getLlmCache("extract", "m2", "p1")).toBeUndefined();
    expect(await store.getLlmCache("glean", "m1", "p1")).toBeUndefined();
    await store.putLlmCache({ ...entry, response: '{"entities":[]}' });
    expect((await store.getLlmCache("extract", "m1", "p1"))?.response).toBe('{"entities":[]}');
  });

  it("lists history in insertion order, optionally for one key", async () => {
    const store = storeOf();
    const entries = [
      historyEntry("zeta", "merge chunk 1"),
      historyEntry("alpha", "merge chunk 1"),
      historyEntry("zeta", "summarize", { action: "update", oldDescription: "a", newDescription: "b" }),
      historyEntry("zeta", "delete document d1", { action: "delete", newDescription: null }),
    ];
    await store.applyGraphChanges(changes({ history: entries.slice(0, 2) }));
    await store.applyGraphChanges(changes({ history: entries.slice(2) }));
    expect(await store.listHistory()).toEqual(entries);
    expect((await store.listHistory("zeta")).map((h) => h.action)).toEqual(["create", "update", "delete"]);
  });
}
