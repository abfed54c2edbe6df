import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/index.js";
import { type ScriptedRerankServer, startScriptedRerank } from "../support/scripted-rerank-server.js";

const DOCUMENTS = [
  { id: "lumen", title: "Lumen", text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015." },
  {
    id: "tidewell",
    title: "Tidewell",
    text: "Tidewell Harbour bought twelve drones from Lumen Robotics in 2021.",
  },
  { id: "porto", title: "Porto", text: "Mara Okafor studied engineering in Porto before Lumen Robotics." },
];
const QUESTION = "Who founded Lumen Robotics?";

/** The reranker's taste: Tidewell first, then Porto, then the rest; it fails while `failing` is set. */
let failing = false;
function scores(documents: string[]): number[] | { status: number } {
  if (failing) return { status: 503 };
  return documents.map((text) => (text.includes("Tidewell") ? 0.9 : text.includes("Porto") ? 0.5 : 0.1));
}

let workspace: string;
let server: ScriptedRerankServer;
let plain: Kgrag;
let reranked: Kgrag;
const warnings: string[] = [];

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "kgrag-rerank-"));
  server = await startScriptedRerank((request) => scores(request.documents));
  plain = await createKgrag({ env: {}, config: { workspace } });
  await plain.index(DOCUMENTS);
  reranked = await createKgrag({
    env: {
      KGRAG_RERANK_MODEL: "scripted-reranker",
      KGRAG_RERANK_BASE_URL: server.baseURL,
      KGRAG_RERANK_API_KEY: "rk",
    },
    config: { workspace },
    progress: { start() {}, advance() {}, finish() {}, info: (message) => warnings.push(message) },
  });
});

afterAll(async () => {
  await reranked?.close();
  await plain?.close();
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
});

describe("reranking candidate passages through a /v1/rerank endpoint (scripted)", () => {
  it("orders the passages of naive, local and mix queries by the reranker's scores", async () => {
    for (const mode of ["naive", "local", "mix"] as const) {
      const before = server.requests.length;
      const result = await reranked.query(QUESTION, { mode, contextOnly: true });
      expect(server.requests.length).toBe(before + 1);
      const request = server.requests.at(-1);
      expect(request).toMatchObject({
        model: "scripted-reranker",
        query: QUESTION,
        authorization: "Bearer rk",
      });
      const expected = request?.documents
        .map((text, i) => ({ text, score: (scores([text]) as number[])[0] ?? 0, i }))
        .sort((a, b) => b.score - a.score || a.i - b.i);
      expect(result.context.chunks.map((c) => [c.text, c.score])).toEqual(
        expected?.map((e) => [e.text, e.score]),
      );
      expect(result.references[0]?.docId).toBe("tidewell");
      expect(result.warnings).toBeUndefined();
    }
  });

  it("leaves global queries alone", async () => {
    const before = server.requests.length;
    await reranked.query(QUESTION, { mode: "global", contextOnly: true });
    expect(server.requests.length).toBe(before);
  });

  it("falls back to the retrieval order with a warning when the reranker fails", async () => {
    failing = true;
    try {
      const result = await reranked.query(QUESTION, { mode: "naive", contextOnly: true });
      const unranked = await plain.query(QUESTION, { mode: "naive", contextOnly: true });
      expect(result.context.chunks).toEqual(unranked.context.chunks);
      expect(result.references[0]?.docId).toBe("lumen");
      expect(result.warnings?.[0]).toMatch(/Reranking failed.*HTTP 503/);
      expect(warnings.at(-1)).toMatch(/Reranking failed/);
    } finally {
      failing = false;
    }
  });
});
