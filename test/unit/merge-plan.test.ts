import { describe, expect, it } from "vitest";
import { mentionsFromExtraction } from "../../src/merge/fold.js";
import { relationshipKey } from "../../src/merge/keys.js";
import { planChunkMerge, planRebuild } from "../../src/merge/plan.js";
import type { Extraction } from "../../src/types.js";
import { FakeMergeStore } from "../support/fake-store.js";

const opts = { summaryMinFragments: 3, summaryMinTokens: 1000, now: () => "2024-01-01T00:00:00.000Z" };

const extractions: Record<string, Extraction> = {
  "chunk-1": {
    entities: [
      { name: "Lumora Optics", type: "organization", description: "A lens maker in Vessen." },
      { name: "Mara Quell", type: "person", description: "Founder of Lumora Optics." },
    ],
    relationships: [
      {
        source: "Mara Quell",
        target: "Lumora Optics",
        description: "Founded it in 2009.",
        keywords: ["founder"],
        strength: 9,
      },
    ],
  },
  "chunk-2": {
    entities: [
      { name: "Lumora Optics", type: "organization", description: "Supplies Halcyon lenses." },
      { name: "Tidewell Robotics", type: "organization", description: "Drone maker in Carrow Bay." },
    ],
    relationships: [
      {
        source: "Lumora Optics",
        target: "Tidewell Robotics",
        description: "Lens supplier.",
        keywords: ["supply"],
        strength: 8,
      },
    ],
  },
  "chunk-3": {
    entities: [{ name: "LUMORA OPTICS", type: "company", description: "Employs 140 people." }],
    relationships: [
      {
        source: "Lumora Optics",
        target: "Mara Quell",
        description: "Run by its founder.",
        keywords: ["ceo"],
        strength: 6,
      },
      {
        source: "Lumora Optics",
        target: "Vessen",
        description: "Headquartered there.",
        keywords: ["hq"],
        strength: 5,
      },
    ],
  },
};

async function mergeChunks(store: FakeMergeStore, chunkIds: string[]) {
  for (const chunkId of chunkIds) {
    const mentions = mentionsFromExtraction(chunkId, extractions[chunkId]!);
    const changes = await planChunkMerge(store, chunkId, mentions, opts);
    await store.commitChunkMerge(chunkId, mentions, changes);
  }
}

describe("planChunkMerge", () => {
  it("creates records with a create history entry per key, and only reads the store", async () => {
    const store = new FakeMergeStore();
    const mentions = mentionsFromExtraction("chunk-1", extractions["chunk-1"]!);
    const changes = await planChunkMerge(store, "chunk-1", mentions, opts);
    expect(store.entities.size).toBe(0);
    expect(changes.upsertEntities.map((e) => e.name)).toEqual(["Lumora Optics", "Mara Quell"]);
    expect(changes.upsertRelationships.map((r) => r.key)).toEqual([
      relationshipKey("lumora optics", "mara quell"),
    ]);
    expect(changes.history).toEqual([
      expect.objectContaining({
        kind: "entity",
        key: "lumora optics",
        action: "create",
        oldDescription: null,
        cause: "merge chunk chunk-1",
      }),
      expect.objectContaining({ kind: "entity", key: "mara quell", action: "create" }),
      expect.objectContaining({
        kind: "relationship",
        action: "create",
        newDescription: "Founded it in 2009.",
      }),
    ]);
  });

  it("folds new mentions with the stored ones and records updates only where something changed", async () => {
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1"]);
    const mentions = mentionsFromExtraction("chunk-2", extractions["chunk-2"]!);
    const changes = await planChunkMerge(store, "chunk-2", mentions, opts);
    const lumora = changes.upsertEntities.find((e) => e.key === "lumora optics")!;
    expect(lumora.fragments).toEqual(["A lens maker in Vessen.", "Supplies Halcyon lenses."]);
    expect(lumora.sourceChunkIds).toEqual(["chunk-1", "chunk-2"]);
    expect(changes.history.map((h) => [h.key, h.action])).toEqual([
      ["lumora optics", "update"],
      ["tidewell robotics", "create"],
      [relationshipKey("lumora optics", "tidewell robotics"), "create"],
    ]);
    expect(changes.history[0]).toMatchObject({
      oldDescription: "A lens maker in Vessen.",
      newDescription: "A lens maker in Vessen.<SEP>Supplies Halcyon lenses.",
    });
  });

  it("changes nothing when a chunk is merged again with the same mentions", async () => {
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1", "chunk-2"]);
    const again = await planChunkMerge(
      store,
      "chunk-1",
      mentionsFromExtraction("chunk-1", extractions["chunk-1"]!),
      opts,
    );
    expect(again).toEqual({
      upsertEntities: [],
      upsertRelationships: [],
      deleteEntityKeys: [],
      deleteRelationshipKeys: [],
      history: [],
    });
  });

  it("on a re-merge with different mentions, drops what the chunk no longer says", async () => {
    const revised = mentionsFromExtraction("chunk-2", {
      entities: [
        { name: "Tidewell Robotics", type: "organization", description: "Drone maker in Carrow Bay." },
      ],
      relationships: [],
    });
    const mergeRevised = async (store: FakeMergeStore) => {
      const changes = await planChunkMerge(store, "chunk-2", revised, opts);
      await store.commitChunkMerge("chunk-2", revised, changes);
      return changes;
    };
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1", "chunk-2"]);
    const changes = await mergeRevised(store);
    const clean = new FakeMergeStore();
    await mergeChunks(clean, ["chunk-1"]);
    await mergeRevised(clean);
    expect(store.snapshot()).toEqual(clean.snapshot());
    expect(changes.deleteRelationshipKeys).toEqual([relationshipKey("lumora optics", "tidewell robotics")]);
  });

  it("flags a summary once merged fragments reach the threshold", async () => {
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1", "chunk-2", "chunk-3"]);
    expect(store.entities.get("lumora optics")).toMatchObject({ needsSummary: true, type: "organization" });
    expect(store.entities.get("vessen")).toMatchObject({ type: "unknown", description: "" });
  });
});

describe("planRebuild", () => {
  it("after deleting a chunk's mentions, yields the same graph as merging the other chunks only", async () => {
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1", "chunk-2", "chunk-3"]);
    const affected = store.deleteChunkMentions(["chunk-2"]);
    const changes = await planRebuild(
      store,
      affected.entityKeys,
      affected.relationshipKeys,
      "delete document d2",
      opts,
    );
    await store.applyGraphChanges(changes);

    const clean = new FakeMergeStore();
    await mergeChunks(clean, ["chunk-1", "chunk-3"]);
    expect(store.snapshot()).toEqual(clean.snapshot());
    expect(changes.deleteEntityKeys).toEqual(["tidewell robotics"]);
    expect(changes.history.filter((h) => h.action === "delete")).toEqual([
      expect.objectContaining({
        kind: "entity",
        key: "tidewell robotics",
        newDescription: null,
        cause: "delete document d2",
      }),
      expect.objectContaining({
        kind: "relationship",
        key: relationshipKey("lumora optics", "tidewell robotics"),
      }),
    ]);
  });

  it("keeps a summary whose fragments did not change, and drops one whose fragments did", async () => {
    const store = new FakeMergeStore();
    await mergeChunks(store, ["chunk-1", "chunk-2", "chunk-3"]);
    const lumora = store.entities.get("lumora optics")!;
    store.entities.set("lumora optics", {
      ...lumora,
      description: "A summarised lens maker.",
      needsSummary: false,
    });

    // Re-folding the same mentions: the fragments match the summary's, so it stays.
    const untouched = await planRebuild(store, ["lumora optics"], [], "rebuild", opts);
    expect(untouched.upsertEntities).toEqual([]);

    const affected = store.deleteChunkMentions(["chunk-3"]);
    const changes = await planRebuild(store, affected.entityKeys, affected.relationshipKeys, "rebuild", opts);
    const rebuilt = changes.upsertEntities.find((e) => e.key === "lumora optics")!;
    expect(rebuilt.description).toBe("A lens maker in Vessen.<SEP>Supplies Halcyon lenses.");
    expect(rebuilt.needsSummary).toBe(false);
    expect(changes.history.find((h) => h.key === "lumora optics")).toMatchObject({
      action: "update",
      oldDescription: "A summarised lens maker.",
    });
  });

  it("deletes nothing and records nothing for keys that never existed", async () => {
    const changes = await planRebuild(
      new FakeMergeStore(),
      ["ghost"],
      [relationshipKey("a", "b")],
      "rebuild",
      opts,
    );
    expect(changes.history).toEqual([]);
    expect(changes.deleteEntityKeys).toEqual([]);
  });
});
