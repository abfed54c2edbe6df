import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Document } from "@langchain/core/documents";
import { FakeListChatModel, SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runLangChainExample } from "../../examples/langchain-agent.js";
import {
  ConfigError,
  type CreateKgragOptions,
  createKgrag,
  createKgragTool,
  fromLangChainDocuments,
  KgragRetriever,
} from "../../src/index.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-langchain-"));
  dirs.push(dir);
  return dir;
}

const LUMEN =
  "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. It builds harbour inspection drones.";
const TIDEWELL = "Tidewell Harbour bought twelve drones from Lumen Robotics in 2021.";

describe("LangChain documents as kgrag input", () => {
  it("takes ids from the source and page, numbers repeats, and flattens nested metadata", () => {
    const docs = fromLangChainDocuments([
      {
        pageContent: "page one",
        metadata: { source: "/r/a.pdf", loc: { pageNumber: 1 }, pdf: { totalPages: 2 } },
      },
      { pageContent: "page two", metadata: { source: "/r/a.pdf", loc: { pageNumber: 2 } } },
      { pageContent: "no page", metadata: { source: "/r/b.txt", tags: ["x"] } },
      { pageContent: "again", metadata: { source: "/r/b.txt" } },
      { pageContent: "loose text" },
    ]);
    expect(docs.map((d) => d.id)).toEqual([
      "/r/a.pdf#page=1",
      "/r/a.pdf#page=2",
      "/r/b.txt",
      "/r/b.txt#2",
      expect.stringMatching(/^lc-/),
    ]);
    expect(docs[0]).toMatchObject({ title: "a.pdf", text: "page one" });
    expect(docs[0]?.metadata).toEqual({ source: "/r/a.pdf", "loc.pageNumber": 1, "pdf.totalPages": 2 });
    expect(docs[2]?.metadata).toEqual({ source: "/r/b.txt" });
  });

  it("indexes loader output through kg.index, and again without duplicating it", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace: await workspace() } });
    try {
      const loaded = [
        new Document({ pageContent: LUMEN, metadata: { source: "notes/lumen.txt", team: "ops" } }),
      ];
      await kg.index(loaded);
      await kg.index(loaded);
      const { documents } = await kg.status();
      expect(documents.map((d) => [d.id, d.title, d.metadata.team])).toEqual([
        ["notes/lumen.txt", "lumen.txt", "ops"],
      ]);
    } finally {
      await kg.close();
    }
  });
});

describe("KgragRetriever and the kgrag tool", () => {
  it("returns the cited passages as Documents whose metadata locates them", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace: await workspace() } });
    try {
      await kg.index([
        { id: "lumen", title: "Lumen", text: LUMEN },
        { id: "tidewell", title: "Tidewell", text: TIDEWELL },
      ]);
      const docs = await new KgragRetriever({ kgrag: kg, mode: "naive" }).invoke(
        "Who founded Lumen Robotics?",
      );
      expect(docs[0]?.metadata).toMatchObject({ docId: "lumen", title: "Lumen", citation: 1 });
      const texts: Record<string, string> = { lumen: LUMEN, tidewell: TIDEWELL };
      docs.forEach((doc, i) => {
        const { docId, start, end, citation, chunkId, score } = doc.metadata;
        expect(citation).toBe(i + 1);
        expect(doc.id).toBe(chunkId);
        expect(texts[docId]?.slice(start, end)).toBe(doc.pageContent);
        expect(score).toBeGreaterThan(0);
      });

      const scoped = await new KgragRetriever({ kgrag: kg, docIds: ["tidewell"] }).invoke(
        "Who founded Lumen Robotics?",
      );
      expect(scoped.map((d) => d.metadata.docId)).toEqual(["tidewell"]);

      const tool = createKgragTool({ kgrag: kg, quoteChars: 20 });
      const reply = JSON.parse(
        String(await tool.invoke({ question: "Who founded Lumen Robotics?", mode: "naive" })),
      );
      expect(reply.mode).toBe("naive");
      expect(reply.answer).toContain("founded by Mara Okafor in Lisbon in 2015. [1]");
      expect(reply.sources[0]).toMatchObject({ n: 1, docId: "lumen", quote: `${LUMEN.slice(0, 20)}…` });
    } finally {
      await kg.close();
    }
  });

  it("runs the example: an agent from createAgent calls the kgrag tool and answers with its sources", async () => {
    const run = await runLangChainExample(await workspace(), "Who founded Lumen Robotics?");
    expect(run.retrieved[0]?.metadata).toMatchObject({ docId: "notes/lumen.txt", citation: 1 });
    expect(run.toolCalls).toBe(1);
    expect(run.finalAnswer).toContain("Mara Okafor");
    expect(run.finalAnswer).toMatch(/Sources: \[1\] lumen\.txt/);
  });
});

describe("LangChain models handed to createKgrag as they are", () => {
  const EXTRACTION = JSON.stringify({
    entities: [{ name: "Mara Okafor", type: "person", description: "Founder of Lumen Robotics." }],
    relationships: [],
  });

  it("adapts a chat model and an embeddings object itself, counting the embedding requests", async () => {
    const chat = new FakeListChatModel({ responses: [EXTRACTION, '{"entities":[],"relationships":[]}'] });
    const embeddings = new SyntheticEmbeddings({ vectorSize: 16 });
    const dir = await workspace();
    const config = { workspace: dir, community: { enabled: false }, entityResolution: "off" } as const;
    const kg = await createKgrag({ env: {}, config, chat, embedder: embeddings });
    try {
      expect(kg.mode).toBe("llm");
      const summary = await kg.index([{ id: "lumen", title: "Lumen", text: LUMEN }]);
      expect(summary.failures).toEqual([]);
      expect(summary.llmCalls).toBe(2);
      expect(summary.embedding.requests).toBeGreaterThan(0);
      expect((await kg.status()).embedding).toEqual({
        model: "SyntheticEmbeddings",
        dimension: 16,
        kind: "langchain",
      });
    } finally {
      await kg.close();
    }
    // Reopened with the same embeddings object: the recorded dimension, no probe request.
    const probing = vi.spyOn(embeddings, "embedQuery");
    const again = await createKgrag({ env: {}, config, chat, embedder: embeddings });
    await again.close();
    expect(probing).not.toHaveBeenCalled();
  });

  it("refuses what is neither kgrag's model nor LangChain's, saying what it takes", async () => {
    const dir = await workspace();
    const given = (options: Record<string, unknown>) => options as CreateKgragOptions;
    await expect(
      createKgrag(given({ env: {}, config: { workspace: dir }, chat: "gpt-4o-mini" })),
    ).rejects.toThrow(
      /^Invalid createKgrag options: chat: must be a ChatModel .* or a LangChain chat model .*; got the string "gpt-4o-mini"\.$/,
    );
    const opening = createKgrag(given({ env: {}, config: { workspace: dir }, embedder: { model: "e" } }));
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(
      /embedder: must be an Embedder .* or a LangChain embeddings object/,
    );
  });
});
