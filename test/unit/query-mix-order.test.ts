import { describe, expect, it, vi } from "vitest";
import type { Retrieval, RetrievalInput } from "../../src/query/modes/retrieval.js";

/** Each mode's passages, by the mode's name, so the order mix keeps can be read off the ids. */
const PASSAGES: Record<string, string[]> = {
  local: ["local-1", "local-2", "shared"],
  naive: ["naive-1", "shared", "naive-2"],
  global: ["global-1", "global-2"],
};

function retrieval(mode: string): Retrieval {
  return {
    entities: [],
    relationships: [],
    chunks: (PASSAGES[mode] ?? []).map((id, i) => ({ id, score: 1 - i / 10 })),
    communities: [],
    communityAnalysis: null,
  };
}

vi.mock("../../src/query/modes/local.js", () => ({ retrieveLocal: async () => retrieval("local") }));
vi.mock("../../src/query/modes/naive.js", () => ({ retrieveNaive: async () => retrieval("naive") }));
vi.mock("../../src/query/modes/global.js", () => ({ retrieveGlobal: async () => retrieval("global") }));

const { retrieveMix } = await import("../../src/query/modes/mix.js");

const input = (chunkTopK: number, agreedLeadDepth = 10, textFirstWithoutSupport = false) =>
  ({
    options: { chunkTopK },
    services: { config: { query: { fusion: { agreedLeadDepth, textFirstWithoutSupport } } } },
  }) as unknown as RetrievalInput;

describe("mix passages", () => {
  it("interleave local, naive and global in that order, each passage once", async () => {
    const { chunks } = await retrieveMix(input(20));
    expect(chunks.map((c) => c.id)).toEqual([
      "local-1",
      "naive-1",
      "global-1",
      "local-2",
      "shared",
      "global-2",
      "naive-2",
    ]);
  });

  it("keep naive's head ahead of global's when the list is cut", async () => {
    const { chunks } = await retrieveMix(input(2));
    expect(chunks.map((c) => c.id)).toEqual(["local-1", "naive-1"]);
  });

  it("lead with naive's head when a walk also ranks it within query.fusion.agreedLeadDepth", async () => {
    const naive = PASSAGES.naive ?? [];
    PASSAGES.naive = ["shared", "naive-1"];
    try {
      expect((await retrieveMix(input(3, 3))).chunks.map((c) => c.id)).toEqual([
        "shared",
        "local-1",
        "global-1",
      ]);
      expect((await retrieveMix(input(3, 2))).chunks.map((c) => c.id)).toEqual([
        "local-1",
        "shared",
        "global-1",
      ]);
    } finally {
      PASSAGES.naive = naive;
    }
  });

  it("put naive's order first when naive does not list local's head at all (textFirstWithoutSupport)", async () => {
    const { chunks } = await retrieveMix(input(20, 10, true));
    expect(chunks.map((c) => c.id)).toEqual([
      "naive-1",
      "local-1",
      "global-1",
      "shared",
      "local-2",
      "global-2",
      "naive-2",
    ]);
  });

  it("keep local's order first when naive lists local's head, however deep", async () => {
    const naive = PASSAGES.naive ?? [];
    PASSAGES.naive = ["naive-1", "shared", "naive-2", "local-1"];
    try {
      const { chunks } = await retrieveMix(input(3, 0, true));
      expect(chunks.map((c) => c.id)).toEqual(["local-1", "naive-1", "global-1"]);
    } finally {
      PASSAGES.naive = naive;
    }
  });
});
