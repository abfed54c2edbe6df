import { afterEach, describe, expect, it } from "vitest";
import type { KgragConfigInput } from "../../src/config.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import { questionOrderOf } from "../../src/query/modes/passage-evidence.js";
import type { RetrievalInput } from "../../src/query/modes/retrieval.js";
import { resolveQueryOptions } from "../../src/query/options.js";
import { buildFixture, DIRECTOR, FILM, type Fixture, MULTI_HOP, TOWN } from "./query-fixture.js";

const QUESTION = "Which novelist lives in Greenwich Village?";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function inputWith(config: KgragConfigInput): Promise<RetrievalInput> {
  fixture = await buildFixture(MULTI_HOP, { config });
  const { services } = fixture;
  return {
    services,
    graph: new QueryGraph(services.store, undefined),
    question: QUESTION,
    keywords: { high: [], low: [] },
    options: resolveQueryOptions(services.config.query, { mode: "hybrid" }),
    vectors: new Map(),
  };
}

const walkOf = (...texts: string[]) => texts.map((t, i) => ({ id: fixture!.chunkOf(t).id, score: 10 - i }));

describe("hybrid's walked passages in the question's order", () => {
  it("put the walked passage that says what was asked first, whatever the walk's order", async () => {
    const input = await inputWith({});
    const ranked = await questionOrderOf(input, walkOf(FILM, DIRECTOR));
    expect(ranked[0]?.id).toBe(fixture!.chunkOf(DIRECTOR).id);
  });

  it("add the corpus's first BM25 passages when asked, in the same order", async () => {
    const input = await inputWith({});
    const ranked = await questionOrderOf(input, walkOf(TOWN), 1);
    expect(ranked[0]?.id).toBe(fixture!.chunkOf(DIRECTOR).id);
    expect(ranked.map((c) => c.id)).toContain(fixture!.chunkOf(TOWN).id);
  });

  it("add no passage the walks did not find by default", async () => {
    const input = await inputWith({});
    const ranked = await questionOrderOf(input, walkOf(TOWN));
    expect(ranked.map((c) => c.id)).not.toContain(fixture!.chunkOf(DIRECTOR).id);
  });

  it("are left out when query.fusion.graphPassageText is off", async () => {
    const input = await inputWith({ query: { fusion: { graphPassageText: false } } });
    expect(await questionOrderOf(input, walkOf(FILM, DIRECTOR))).toEqual([]);
  });
});
