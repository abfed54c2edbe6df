import { expect, it } from "vitest";
import { changes, makeEntity, type StoreOf, seedDocument } from "./storage-fixtures.js";

export function describeVectors(storeOf: StoreOf): void {
  const items = [
    { id: "x", vector: [1, 0, 0], textHash: "hx" },
    { id: "xy", vector: [1, 1, 0], textHash: "hxy" },
    { id: "y", vector: [0, 1, 0], textHash: "hy" },
    { id: "z", vector: [0, 0, 1], textHash: "hz" },
  ];

  it("ranks vectors by cosine similarity, best first", async () => {
    const store = storeOf();
    expect(await store.searchVectors("entities", [1, 0, 0], 3)).toEqual([]);
    await store.upsertVectors("entities", items);
    const hits = await store.searchVectors("entities", [2, 0.2, 0], 3);
    expect(hits.map((h) => h.id)).toEqual(["x", "xy", "y"]);
    expect(hits[0]!.score).toBeCloseTo(2 / Math.hypot(2, 0.2), 5);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it("filters candidates with `allow` before taking the top k", async () => {
    const store = storeOf();
    await store.upsertVectors("entities", items);
    expect(await store.searchVectors("entities", [1, 0, 0], 1, new Set(["y", "z"]))).toEqual([
      { id: "y", score: expect.closeTo(0, 5) },
    ]);
    expect((await store.searchVectors("entities", [1, 0, 0], 1, new Set(["xy", "z"])))[0]?.id).toBe("xy");
    expect(await store.searchVectors("entities", [1, 0, 0], 3, new Set())).toEqual([]);
  });

  it("rejects vectors whose dimension differs from the namespace's", async () => {
    const store = storeOf();
    await store.upsertVectors("chunks", items);
    await expect(
      store.upsertVectors("chunks", [{ id: "w", vector: [1, 0], textHash: "hw" }]),
    ).rejects.toThrow(/dimension/i);
    expect((await store.vectorHashes("chunks")).size).toBe(4);
    await store.upsertVectors("communities", [{ id: "w", vector: [1, 0], textHash: "hw" }]);
    expect((await store.searchVectors("communities", [1, 0], 1))[0]?.id).toBe("w");
  });

  it("updates and deletes vectors and reports their text hashes", async () => {
    const store = storeOf();
    await store.upsertVectors("relationships", items);
    expect(await store.searchVectors("relationships", [0, 0, 1], 1)).toEqual([
      { id: "z", score: expect.closeTo(1, 5) },
    ]);
    await store.upsertVectors("relationships", [{ id: "x", vector: [0, 0, 1], textHash: "hx2" }]);
    await store.deleteVectors("relationships", ["z"]);
    expect(await store.vectorHashes("relationships")).toEqual(
      new Map([
        ["x", "hx2"],
        ["xy", "hxy"],
        ["y", "hy"],
      ]),
    );
    expect((await store.searchVectors("relationships", [0, 0, 1], 1))[0]?.id).toBe("x");
  });
}

export function describeFullText(storeOf: StoreOf): void {
  it("ranks chunks by BM25 over English text, higher scores first", async () => {
    const store = storeOf();
    const [tower, paris, berlin] = await seedDocument(store, "d1", [
      "The Eiffel Tower is a landmark in Paris.",
      "Paris is the capital of France.",
      "Berlin is the capital of Germany.",
    ]);
    const hits = await store.searchChunkText("Eiffel tower Paris", 10);
    expect(hits.map((h) => h.id)).toEqual([tower!.id, paris!.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits.map((h) => h.id)).not.toContain(berlin!.id);
    expect((await store.searchChunkText("capital", 10, new Set([berlin!.id]))).map((h) => h.id)).toEqual([
      berlin!.id,
    ]);
  });

  it("scores chunks with FTS5's BM25: a word in most passages adds next to nothing", async () => {
    const store = storeOf();
    const [repeats, rare] = await seedDocument(store, "d1", [
      "common common common common common common common common filler",
      "unusual filler filler filler filler filler filler filler filler filler filler filler",
      "common words",
      "common things",
      "nothing else",
    ]);
    const hits = await store.searchChunkText("common unusual", 10);
    expect(hits.map((h) => h.id).slice(0, 2)).toEqual([rare!.id, repeats!.id]);
    // idf ln((N - n + 0.5) / (n + 0.5)) with k1 1.2, b 0.75; "common" (3 of 5) gets FTS5's 1e-6.
    const averageLength = (9 + 12 + 2 + 2 + 2) / 5;
    const rareScore = (Math.log(4.5 / 1.5) * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 12) / averageLength));
    expect(hits[0]!.score).toBeCloseTo(rareScore, 6);
    expect(hits[1]!.score).toBeLessThan(1e-4);
  });

  it("finds Chinese text by a word inside an unspaced sentence", async () => {
    const store = storeOf();
    const [tencent, alibaba] = await seedDocument(store, "d1", [
      "腾讯公司总部位于深圳",
      "阿里巴巴总部在杭州",
    ]);
    expect((await store.searchChunkText("深圳", 5)).map((h) => h.id)).toEqual([tencent!.id]);
    expect((await store.searchChunkText("杭州在哪里？", 5)).map((h) => h.id)).toEqual([alibaba!.id]);
    expect((await store.searchChunkText("腾讯", 5)).map((h) => h.id)).toEqual([tencent!.id]);
  });

  it("treats quotes, operators and punctuation in queries as plain text", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ['He said "hello" to Paris (France).']);
    for (const query of [
      '"hello',
      "Paris AND (France OR",
      "NEAR(hello, 2) *",
      "-paris ^france",
      'he said: "hi"',
    ]) {
      const hits = await store.searchChunkText(query, 5);
      expect(hits.map((h) => h.id)).toEqual([chunk!.id]);
    }
    expect(await store.searchChunkText("?!*()\"'", 5)).toEqual([]);
    expect(await store.searchChunkText("", 5)).toEqual([]);
    expect(await store.searchEntityText('") OR (', 5)).toEqual([]);
  });

  it("searches entities by name before description, following updates and deletes", async () => {
    const store = storeOf();
    const [chunk] = await seedDocument(store, "d1", ["text"]);
    await store.commitChunkMerge(
      chunk!.id,
      { entities: [], relationships: [] },
      changes({
        upsertEntities: [
          makeEntity("France", { description: "A country whose capital is Paris." }),
          makeEntity("Paris", { description: "A capital city." }),
          makeEntity("腾讯", { description: "一家科技公司" }),
        ],
      }),
    );
    expect((await store.searchEntityText("Paris", 5)).map((h) => h.id)).toEqual(["paris", "france"]);
    expect((await store.searchEntityText("腾讯", 5)).map((h) => h.id)).toEqual(["腾讯"]);
    await store.applyGraphChanges(changes({ deleteEntityKeys: ["paris"] }));
    expect((await store.searchEntityText("Paris", 5)).map((h) => h.id)).toEqual(["france"]);
    await store.applyGraphChanges(
      changes({ upsertEntities: [makeEntity("France", { description: "A country in Europe." })] }),
    );
    expect(await store.searchEntityText("Paris", 5)).toEqual([]);
    expect((await store.searchEntityText("europe", 5)).map((h) => h.id)).toEqual(["france"]);
  });
}
