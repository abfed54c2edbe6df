import { describe, expect, it } from "vitest";
import { EMBED_BATCH, ReportEmbeddings } from "../../src/community/embed-reports.js";
import type { Embedder } from "../../src/embedding/embedder.js";
import type { CommunityRecord, VectorItem } from "../../src/types.js";
import { CommunityFakeStore, communityServices } from "../support/community-fake-store.js";

function reported(id: string): CommunityRecord {
  const markdown = `# Community ${id}\n\n${id} gathers entities that appear together.`;
  return {
    id,
    level: 0,
    parentId: null,
    childIds: [],
    entityKeys: [id],
    contentHash: `h-${id}`,
    report: {
      title: id,
      summary: "",
      rating: 1,
      ratingExplanation: "",
      findings: [],
      markdown,
      method: "extractive",
    },
    reportHash: `h-${id}`,
  };
}

/**
 * Services whose embedder holds every request until `answer(n)` releases the n-th (from 0), and
 * whose store records each vector write (ids in order).
 */
function heldSetup() {
  const store = new CommunityFakeStore();
  const services = communityServices(store);
  const inner = services.embedder;
  const releases: (() => void)[] = [];
  services.embedder = Object.assign(Object.create(inner) as Embedder, {
    embed: async (texts: string[]) => {
      await new Promise<void>((resolve) => releases.push(resolve));
      return inner.embed(texts);
    },
  });
  const writes: string[][] = [];
  const upsert = store.upsertVectors.bind(store);
  store.upsertVectors = async (ns, items: VectorItem[]) => {
    if (ns === "communities") writes.push(items.map((item) => item.id));
    await upsert(ns, items);
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const answer = async (n: number) => {
    releases[n]?.();
    for (let i = 0; i < 5; i += 1) await settle();
  };
  return { store, services, inner, writes, answer, requests: () => releases.length };
}

const ids = (count: number) => Array.from({ length: count }, (_, i) => `c0-${String(i).padStart(3, "0")}`);

describe("ReportEmbeddings", () => {
  it("writes answered vectors in request order, a write's worth at a time, before the step finishes", async () => {
    const { store, services, inner, writes, answer, requests } = heldSetup();
    const writeSize = 2 * EMBED_BATCH;
    const embeddings = await ReportEmbeddings.open(services, writeSize);
    const communities = ids(5 * EMBED_BATCH).map(reported);
    for (const community of communities) embeddings.add(community);
    expect(requests()).toBe(5);
    // The second request answers first: nothing is written until the first one has answered too.
    await answer(1);
    expect(writes).toEqual([]);
    await answer(0);
    expect(writes).toEqual([communities.slice(0, writeSize).map((c) => c.id)]);
    await answer(2);
    await answer(3);
    expect(writes.flat()).toEqual(communities.slice(0, 2 * writeSize).map((c) => c.id));
    expect(writes.every((w) => w.length === writeSize)).toBe(true);
    // The last request's vectors wait for a full write, or for finish.
    const finished = embeddings.finish(communities);
    await answer(4);
    expect(await finished).toBe(communities.length);
    expect(writes.flat()).toEqual(communities.map((c) => c.id));
    const vectors = store.vectors.get("communities");
    for (const community of communities) {
      const [expected] = await inner.embed([community.report?.markdown ?? ""]);
      expect(vectors?.get(community.id)?.vector).toEqual(expected);
    }
  });

  it("after a stop, keeps the vectors answered so far, and the next run embeds only the rest", async () => {
    const { store, services, inner, writes, answer } = heldSetup();
    const communities = ids(3 * EMBED_BATCH + 5).map(reported);
    const stopped = await ReportEmbeddings.open(services, EMBED_BATCH);
    for (const community of communities.slice(0, 2 * EMBED_BATCH)) stopped.add(community);
    await answer(0);
    // The step stops with its second request in hand: it settles, and its vectors are written too.
    const settled = stopped.settled();
    await answer(1);
    await settled;
    expect(writes.flat()).toEqual(communities.slice(0, 2 * EMBED_BATCH).map((c) => c.id));

    services.embedder = inner;
    const embedded: string[] = [];
    services.embedder = Object.assign(Object.create(inner) as Embedder, {
      embed: (texts: string[]) => {
        embedded.push(...texts);
        return inner.embed(texts);
      },
    });
    const resumed = await ReportEmbeddings.open(services, EMBED_BATCH);
    expect(await resumed.finish(communities)).toBe(EMBED_BATCH + 5);
    expect(embedded).toEqual(communities.slice(2 * EMBED_BATCH).map((c) => c.report?.markdown));
    const vectors = store.vectors.get("communities");
    expect([...(vectors?.keys() ?? [])].sort()).toEqual(communities.map((c) => c.id));
    for (const community of communities) {
      const [expected] = await inner.embed([community.report?.markdown ?? ""]);
      expect(vectors?.get(community.id)?.vector).toEqual(expected);
    }
  });

  it("a failed request fails finish, and writes nothing after it", async () => {
    const store = new CommunityFakeStore();
    const services = communityServices(store);
    const inner = services.embedder;
    let calls = 0;
    services.embedder = Object.assign(Object.create(inner) as Embedder, {
      embed: (texts: string[]) => {
        calls += 1;
        return calls === 2 ? Promise.reject(new Error("embedding endpoint down")) : inner.embed(texts);
      },
    });
    const embeddings = await ReportEmbeddings.open(services, EMBED_BATCH);
    const communities = ids(3 * EMBED_BATCH).map(reported);
    await expect(embeddings.finish(communities)).rejects.toThrow("embedding endpoint down");
    expect([...(store.vectors.get("communities")?.keys() ?? [])]).toEqual(
      communities.slice(0, EMBED_BATCH).map((c) => c.id),
    );
  });
});
