import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embedding/embedder.js";
import { relationshipKey } from "../../src/merge/keys.js";
import { embedGraph, relationshipEmbeddingText, WRITE_BATCH } from "../../src/pipeline/embed-graph.js";
import type { GraphRelationship, GraphView } from "../../src/storage/graph-store.js";
import { CommunityFakeStore, communityServices } from "../support/community-fake-store.js";

/** A view of `count` relationships whose descriptions log each read into `events`. */
function loggedView(count: number, events: string[]): GraphView {
  const entities = Array.from({ length: count + 1 }, (_, i) => ({
    key: `e${i}`,
    name: `E${i}`,
    type: "concept",
    description: `E${i} is an entity.`,
  }));
  const relationships = Array.from({ length: count }, (_, i): GraphRelationship => {
    const [sourceKey, targetKey] = [`e${i}`, `e${i + 1}`];
    const relationship = {
      key: relationshipKey(sourceKey, targetKey),
      sourceKey,
      targetKey,
      keywords: ["near"],
      weight: 1,
    };
    return Object.defineProperty(relationship, "description", {
      enumerable: true,
      get: () => {
        events.push(`read ${i}`);
        return `E${i} stands near E${i + 1}.`;
      },
    }) as GraphRelationship;
  });
  return { entities, relationships };
}

describe("embedGraph", () => {
  it("builds each text again when its batch is embedded, not all of a namespace's texts at once", async () => {
    const store = new CommunityFakeStore();
    const services = communityServices(store);
    const inner = services.embedder;
    const events: string[] = [];
    const embedded: string[] = [];
    services.embedder = Object.assign(Object.create(inner) as Embedder, {
      embed: (texts: string[]) => {
        events.push(`embed ${texts.length}`);
        embedded.push(...texts);
        return inner.embed(texts);
      },
    });
    const count = 2 * WRITE_BATCH + 10;
    const view = loggedView(count, events);
    await embedGraph(services, undefined, view, ["relationships"]);

    const reads = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `read ${from + i}`);
    // Every text once for its hash, then each batch's texts right before its request.
    expect(events).toEqual([
      ...reads(0, count),
      ...reads(0, WRITE_BATCH),
      `embed ${WRITE_BATCH}`,
      ...reads(WRITE_BATCH, 2 * WRITE_BATCH),
      `embed ${WRITE_BATCH}`,
      ...reads(2 * WRITE_BATCH, count),
      "embed 10",
    ]);
    const names = new Map(view.entities.map((e) => [e.key, e.name]));
    const texts = view.relationships.map((r) => relationshipEmbeddingText(r, names));
    expect(embedded).toEqual(texts);
    const vectors = store.vectors.get("relationships");
    const expected = await inner.embed(texts);
    view.relationships.forEach((r, i) => {
      expect(vectors?.get(r.key)?.vector).toEqual(expected[i]);
    });
  });
});
