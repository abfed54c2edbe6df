import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { entityKey } from "../../src/merge/keys.js";

const ENGLISH = `# Lumen Robotics

Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. The company builds warehouse robots.
Mara Okafor studied mechanical engineering at the University of Porto before founding Lumen Robotics.
In 2021 Lumen Robotics opened a research lab in Berlin led by Tomas Weber.`;

const CHINESE = `# 青石科技

青石科技由李明于2016年在杭州创立。公司主要研发物流机器人。
李明毕业于浙江大学，此前在阿里巴巴工作。2020年，青石科技在深圳设立了研发中心。`;

describe("offline indexing end to end", () => {
  let root: string;
  let kgrag: Kgrag;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-e2e-"));
    writeFileSync(join(root, "lumen.md"), ENGLISH);
    writeFileSync(join(root, "qingshi.md"), CHINESE);
    writeFileSync(join(root, "empty.txt"), "   \n");
    writeFileSync(join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
  });

  afterEach(async () => {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("builds a graph with provenance from English and Chinese documents without any model", async () => {
    expect(kgrag.mode).toBe("offline");
    const summary = await kgrag.index([root]);

    expect(summary.llmCalls).toBe(0);
    // An empty file is skipped, not failed: indexing it again could never help.
    expect(summary.skipped).toEqual([
      {
        path: join(root, "empty.txt"),
        reason: "empty document: no text to index",
        docId: expect.any(String),
      },
      { path: join(root, "image.png"), reason: expect.stringMatching(/unsupported file type/) },
    ]);
    expect(summary.failures).toEqual([]);
    expect(summary.failed).toBe(0);
    expect(summary.documents).toBe(2);
    expect(summary.entities).toBeGreaterThan(5);
    expect(summary.relationships).toBeGreaterThan(3);

    const { store } = kgrag.services;
    const [mara] = await store.getEntities([entityKey("Mara Okafor")]);
    expect(mara?.name).toBe("Mara Okafor");
    expect(mara?.sourceChunkIds.length).toBeGreaterThan(0);
    const chunks = await store.getChunks(mara?.sourceChunkIds ?? []);
    expect(chunks.every((c) => c.text.includes("Mara Okafor"))).toBe(true);

    const [liMing] = await store.getEntities([entityKey("李明")]);
    expect(liMing).toBeDefined();
    const liMingEdges = await store.relationshipsOf([entityKey("李明")]);
    expect(liMingEdges.length).toBeGreaterThan(0);

    const status = await kgrag.status();
    expect(status.extractor).toBe("offline-nlp");
    expect(status.embedding.kind).toBe("hashing");
    const byTitle = new Map(status.documents.map((d) => [d.title, d.status]));
    expect(byTitle.get("Lumen Robotics")).toBe("processed");
  });

  it("does nothing when the same content is indexed again", async () => {
    const first = await kgrag.index([root]);
    const history = (await kgrag.services.store.listHistory()).length;
    const second = await kgrag.index([root]);
    expect(second.added).toEqual([]);
    expect(second.unchanged.length).toBe(2);
    expect(second.entities).toBe(first.entities);
    expect(second.relationships).toBe(first.relationships);
    expect((await kgrag.services.store.listHistory()).length).toBe(history);
  });

  it("embeds chunks, entities and relationships, each in its own index", async () => {
    await kgrag.index([root]);
    const { store } = kgrag.services;
    const counts = await store.counts();
    expect((await store.vectorHashes("chunks")).size).toBe(counts.chunks);
    expect((await store.vectorHashes("entities")).size).toBe(counts.entities);
    expect((await store.vectorHashes("relationships")).size).toBe(counts.relationships);
  });

  it("refuses to open a workspace with a different embedding model", async () => {
    await kgrag.index([root]);
    await expect(
      createKgrag({ env: {}, config: { workspace: join(root, "ws"), hashingDimension: 128 } }),
    ).rejects.toThrow(/embedding model/);
  });
});
