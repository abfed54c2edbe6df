import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyStore } from "../../src/export/copy-store.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { LlmCacheEntry, VectorItem, VectorNamespace } from "../../src/types.js";
import {
  entityMention,
  historyEntry,
  makeEntity,
  makeRelationship,
  relationshipMention,
  seedDocument,
} from "../support/storage-fixtures.js";

/**
 * `kgrag migrate` copies through the GraphStore interface only, so SQLite → SQLite proves the copy
 * logic that SQLite → Neo4j uses. The bulk reads (meta, vectors, LLM cache) are optional in the
 * interface; a thin proxy supplies or hides them, so both paths are tested whatever SQLite offers.
 */

interface Seeded {
  meta: Record<string, string>;
  vectors: Map<VectorNamespace, VectorItem[]>;
  cache: LlmCacheEntry[];
}

let dir: string;
let source: GraphStore;
let target: GraphStore;
let seeded: Seeded;

async function seedSource(store: GraphStore): Promise<Seeded> {
  const [a1, a2, a3] = await seedDocument(
    store,
    "a",
    ["Acme builds rockets.", "Acme hires Bob.", "Nothing here."],
    {
      year: 2020,
    },
  );
  const [b1] = await seedDocument(store, "b", ["Bob lives in Paris."]);
  const acme = makeEntity("Acme", { sourceChunkIds: [a1!.id, a2!.id] });
  const bob = makeEntity("Bob", { type: "person", sourceChunkIds: [a2!.id, b1!.id] });
  const paris = makeEntity("Paris", { type: "location", sourceChunkIds: [b1!.id] });
  const merge = async (chunkId: string, names: string[], pair: [string, string] | null, history: string) =>
    store.commitChunkMerge(
      chunkId,
      {
        entities: names.map((n) => entityMention(n, chunkId)),
        relationships: pair ? [relationshipMention(pair[0], pair[1], chunkId)] : [],
      },
      {
        upsertEntities: [acme, bob, paris].filter((e) => names.includes(e.name)),
        upsertRelationships: pair ? [makeRelationship(pair[0], pair[1])] : [],
        deleteEntityKeys: [],
        deleteRelationshipKeys: [],
        history: [historyEntry(names[0]!.toLowerCase(), history)],
      },
    );
  await merge(b1!.id, ["Bob", "Paris"], ["Bob", "Paris"], "merge b1");
  await merge(a1!.id, ["Acme"], null, "merge a1");
  await merge(a2!.id, ["Acme", "Bob"], ["Acme", "Bob"], "merge a2");
  await store.markChunkFailed(a3!.id, "model output was not JSON", "{oops");
  await store.setDocumentStatus("a", "processed", null);
  await store.replaceCommunities([
    {
      id: "c0-0",
      level: 0,
      parentId: null,
      childIds: [],
      entityKeys: [acme.key, bob.key, paris.key],
      contentHash: "h",
      report: {
        title: "Acme and Bob",
        summary: "s",
        rating: 4,
        ratingExplanation: "r",
        findings: [{ summary: "f", explanation: "e" }],
        markdown: "# Acme and Bob",
        method: "extractive",
      },
      reportHash: "h",
    },
  ]);
  const vectors = new Map<VectorNamespace, VectorItem[]>([
    ["chunks", [a1!, a2!, b1!].map((c, i) => ({ id: c.id, vector: [1, i, 0.5], textHash: `t${i}` }))],
    ["entities", [acme, bob].map((e, i) => ({ id: e.key, vector: [i, 1, 0], textHash: `e${i}` }))],
  ]);
  for (const [ns, items] of vectors) await store.upsertVectors(ns, items);
  const meta = { "embedding.model": "hashing-v1", extractor: "offline-nlp" };
  for (const [key, value] of Object.entries(meta)) await store.setMeta(key, value);
  const cache: LlmCacheEntry[] = [
    { stage: "extract", model: "m", promptHash: "p1", response: "{}", promptTokens: 10, completionTokens: 2 },
  ];
  for (const entry of cache) await store.putLlmCache(entry);
  return { meta, vectors, cache };
}

/** The store with the optional bulk reads supplied from what the test stored (or hidden). */
function withBulkReads(store: GraphStore, bulk: Seeded | null): GraphStore {
  const extra: Partial<GraphStore> = bulk
    ? {
        listMeta: async () => bulk.meta,
        getVectors: async (ns, ids) => (bulk.vectors.get(ns) ?? []).filter((v) => ids.includes(v.id)),
        listLlmCache: async () => bulk.cache,
      }
    : { listMeta: undefined, getVectors: undefined, listLlmCache: undefined };
  return new Proxy<GraphStore>(store, {
    get(target, property, receiver) {
      if (property in extra) return extra[property as keyof GraphStore];
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-migrate-"));
  source = await openSqliteStore(join(dir, "source"));
  target = await openSqliteStore(join(dir, "target"));
  seeded = await seedSource(source);
});

afterEach(async () => {
  await source.close();
  await target.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("copyStore (kgrag migrate)", () => {
  it("copies documents, chunks with their state, mentions, graph, history and communities exactly", async () => {
    const report = await copyStore(withBulkReads(source, seeded), target);
    expect(report).toMatchObject({ documents: 2, chunks: 4, entities: 3, relationships: 2, communities: 1 });
    expect(await target.listDocuments()).toEqual(await source.listDocuments());
    expect(await target.listChunks()).toEqual(await source.listChunks());
    expect(await target.getChunkStates()).toEqual(await source.getChunkStates());
    const chunkIds = (await source.listChunks()).map((c) => c.id);
    expect(await target.getChunkMentions(chunkIds)).toEqual(await source.getChunkMentions(chunkIds));
    expect(await target.getEntityMentions(["bob"])).toEqual(await source.getEntityMentions(["bob"]));
    expect(await target.listEntities()).toEqual(await source.listEntities());
    expect(await target.listRelationships()).toEqual(await source.listRelationships());
    expect(await target.listHistory()).toEqual(await source.listHistory());
    expect(await target.listCommunities()).toEqual(await source.listCommunities());
    expect(await target.counts()).toEqual(await source.counts());
    expect(await target.chunkIdsInScope({ metadata: { year: "2020" } })).toEqual(
      await source.chunkIdsInScope({ metadata: { year: "2020" } }),
    );
  });

  it("copies vectors, LLM cache and metadata through the bulk reads, so nothing is embedded again", async () => {
    const report = await copyStore(withBulkReads(source, seeded), target);
    expect(report).toMatchObject({ vectors: 5, llmCache: 1, meta: 2, notCopied: [] });
    for (const ns of ["chunks", "entities"] as const) {
      expect(await target.vectorHashes(ns)).toEqual(await source.vectorHashes(ns));
      expect(await target.searchVectors(ns, [1, 1, 0], 3)).toEqual(
        await source.searchVectors(ns, [1, 1, 0], 3),
      );
    }
    expect(await target.getLlmCache("extract", "m", "p1")).toEqual(seeded.cache[0]);
    expect(await target.getMeta("embedding.model")).toBe("hashing-v1");
  });

  it("says which parts a source without bulk reads could not copy, and copies the rest", async () => {
    const report = await copyStore(withBulkReads(source, null), target);
    expect(report.notCopied).toHaveLength(3);
    expect(report.notCopied.join("\n")).toMatch(/metadata[\s\S]*vectors[\s\S]*LLM cache/);
    expect(await target.vectorHashes("chunks")).toEqual(new Map());
    expect(await target.listEntities()).toEqual(await source.listEntities());
  });

  it("refuses a target that already holds data, leaving it untouched", async () => {
    await seedDocument(target, "mine", ["Keep me."]);
    const before = await target.listDocuments();
    await expect(copyStore(source, target)).rejects.toThrow(/already holds 1 documents/);
    expect(await target.listDocuments()).toEqual(before);
  });
});
