import { describe, expect, it } from "vitest";
import { mentionsFromExtraction } from "../../src/merge/fold.js";
import { relationshipKey } from "../../src/merge/keys.js";
import { planChunkMerge } from "../../src/merge/plan.js";
import type { DescriptionSummarizer } from "../../src/merge/summarizer.js";
import { summarizeDescriptions } from "../../src/pipeline/summarize-descriptions.js";
import { silentProgress } from "../../src/util/progress.js";
import { FakeMergeStore } from "../support/fake-store.js";

const opts = { summaryMinFragments: 2, summaryMinTokens: 1000 };

/** Summaries that show what they were made from; fails for one named subject. */
class EchoSummarizer implements DescriptionSummarizer {
  readonly kind = "extractive" as const;
  readonly subjects: string[] = [];
  constructor(private readonly failFor?: string) {}

  async summarize(subject: { kind: "entity" | "relationship"; name: string }, fragments: string[]) {
    this.subjects.push(`${subject.kind}:${subject.name}`);
    if (subject.name === this.failFor) throw new Error("model unavailable");
    return `${subject.name} in short (${fragments.length})`;
  }
}

async function storeWithPendingSummaries() {
  const store = new FakeMergeStore();
  const chunks = {
    "chunk-1": { name: "Lumora Optics", description: "A lens maker.", rel: "Supplies lenses." },
    "chunk-2": { name: "Lumora Optics", description: "Based in Vessen.", rel: "Five-year agreement." },
  };
  for (const [chunkId, c] of Object.entries(chunks)) {
    const mentions = mentionsFromExtraction(chunkId, {
      entities: [
        { name: c.name, type: "organization", description: c.description },
        { name: "Tidewell Robotics", type: "organization", description: "Drone maker." },
      ],
      relationships: [
        { source: c.name, target: "Tidewell Robotics", description: c.rel, keywords: [], strength: 5 },
      ],
    });
    await store.commitChunkMerge(chunkId, mentions, await planChunkMerge(store, chunkId, mentions, opts));
  }
  return store;
}

describe("summarizeDescriptions", () => {
  it("replaces joined fragments with summaries, clears the flag and records the change", async () => {
    const store = await storeWithPendingSummaries();
    const summarizer = new EchoSummarizer();
    const result = await summarizeDescriptions({ store, progress: silentProgress }, summarizer);
    expect(result).toEqual({ entities: 1, relationships: 1, failed: [] });
    expect(summarizer.subjects.sort()).toEqual([
      "entity:Lumora Optics",
      "relationship:Lumora Optics — Tidewell Robotics",
    ]);
    expect(store.entities.get("lumora optics")).toMatchObject({
      description: "Lumora Optics in short (2)",
      needsSummary: false,
      fragments: ["A lens maker.", "Based in Vessen."],
    });
    const pair = relationshipKey("lumora optics", "tidewell robotics");
    expect(store.relationships.get(pair)).toMatchObject({ needsSummary: false });
    expect(store.history.filter((h) => h.cause === "summarize")).toEqual([
      expect.objectContaining({
        action: "update",
        key: "lumora optics",
        oldDescription: "A lens maker.<SEP>Based in Vessen.",
      }),
      expect.objectContaining({
        action: "update",
        key: pair,
        newDescription: "Lumora Optics — Tidewell Robotics in short (2)",
      }),
    ]);
    expect(await summarizeDescriptions({ store, progress: silentProgress }, summarizer)).toEqual({
      entities: 0,
      relationships: 0,
      failed: [],
    });
  });

  it("keeps a summary across a re-merge that does not change the fragments", async () => {
    const store = await storeWithPendingSummaries();
    await summarizeDescriptions({ store, progress: silentProgress }, new EchoSummarizer());
    const again = await planChunkMerge(store, "chunk-1", await store.getChunkMentions(["chunk-1"]), opts);
    expect(again.upsertEntities).toEqual([]);
    expect(again.upsertRelationships).toEqual([]);
  });

  it("reports a failed summary and leaves that record waiting, without losing the others", async () => {
    const store = await storeWithPendingSummaries();
    const result = await summarizeDescriptions(
      { store, progress: silentProgress },
      new EchoSummarizer("Lumora Optics"),
    );
    expect(result.entities).toBe(0);
    expect(result.relationships).toBe(1);
    expect(result.failed).toEqual([{ kind: "entity", key: "lumora optics", error: "model unavailable" }]);
    expect(store.entities.get("lumora optics")).toMatchObject({
      needsSummary: true,
      description: "A lens maker.<SEP>Based in Vessen.",
    });
  });

  it("does not write a summary over fragments that changed while it was being made", async () => {
    const store = await storeWithPendingSummaries();
    const racing: DescriptionSummarizer = {
      kind: "extractive",
      async summarize(subject) {
        const lumora = store.entities.get("lumora optics")!;
        store.entities.set("lumora optics", { ...lumora, fragmentsHash: "changed-meanwhile" });
        return `${subject.name} in short`;
      },
    };
    const result = await summarizeDescriptions({ store, progress: silentProgress }, racing);
    expect(result.entities).toBe(0);
    expect(store.entities.get("lumora optics")).toMatchObject({
      needsSummary: true,
      fragmentsHash: "changed-meanwhile",
    });
  });
});
