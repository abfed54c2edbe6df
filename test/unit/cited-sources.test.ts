import { describe, expect, it } from "vitest";
import { citedPassageNumbers } from "../../src/community/citations.js";
import { NOTHING_FOUND } from "../../src/query/answer/answer.js";
import type { ContextCommunity, QueryResult, Reference } from "../../src/query/result.js";
import { citedSources, resultText } from "../../src/query/result-text.js";

const reference = (n: number): Reference =>
  ({ n, chunkId: `chunk-${n}`, docId: `doc-${n}`, title: `Doc ${n}`, start: 0, end: 10 }) as Reference;
const community = (id: string): ContextCommunity =>
  ({ id, title: `Report ${id}`, level: 0, rating: 5, summary: "s" }) as ContextCommunity;

function result(answer: string): QueryResult {
  return {
    answer,
    references: [1, 2, 3, 4].map(reference),
    context: {
      entities: [],
      relationships: [],
      chunks: [],
      communities: [community("c0-a"), community("c1-b")],
    },
  } as unknown as QueryResult;
}

describe("the sources a terminal, the demo and the Ollama API list", () => {
  it("reads passage numbers from every citation form", () => {
    expect([...citedPassageNumbers("A [1]. B [2, 4]; C [C:c0-a, 3] and [E:1] stays out.")]).toEqual([
      1, 2, 4, 3,
    ]);
  });

  it("are the passages and reports the answer cites", () => {
    const sources = citedSources(result("Mara founded it [2][4] and the fleet grew [C:c1-b]."));
    expect(sources.cited).toBe(true);
    expect(sources.references.map((r) => r.n)).toEqual([2, 4]);
    expect(sources.communities.map((c) => c.id)).toEqual(["c1-b"]);
    const text = resultText(result("Mara founded it [2]."));
    expect(text).toContain("[2] Doc 2");
    expect(text).not.toContain("[1] Doc 1");
    expect(text).not.toContain("[C:c0-a]");
  });

  it("are every passage when the answer cites none, and the whole context without an answer", () => {
    const uncited = citedSources(result("An answer without citations."));
    expect(uncited.cited).toBe(false);
    expect(uncited.references).toHaveLength(4);
    expect(uncited.communities).toEqual([]);
    // "Nothing matches" cites nothing, and the passages retrieved are not its sources.
    const nothing = citedSources(result(NOTHING_FOUND));
    expect([nothing.references, nothing.communities]).toEqual([[], []]);
    expect(resultText(result(NOTHING_FOUND))).not.toContain("Sources");
    const contextOnly = citedSources(result(""));
    expect(contextOnly.references).toHaveLength(4);
    expect(contextOnly.communities.map((c) => c.id)).toEqual(["c0-a", "c1-b"]);
  });

  it("counts the context of --context-only in the right number", () => {
    const one = result("");
    one.context.communities = one.context.communities.slice(0, 1);
    expect(resultText(one)).toContain(": 0 entities, 0 relationships, 1 community report, 0 passages\n");
  });
});
