import { afterEach, describe, expect, it } from "vitest";
import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import { QueryGraph } from "../../src/query/graph/query-graph.js";
import { entitySeeds, relationshipSeeds } from "../../src/query/graph/seeds.js";
import type { QueryKeywords } from "../../src/query/keywords.js";
import { queryTexts, type RetrievalInput } from "../../src/query/modes/retrieval.js";
import { resolveQueryOptions } from "../../src/query/options.js";
import { buildFixture, type Fixture, MULTI_HOP } from "./query-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Three more passages that all mention the generic "film". */
const WITH_GENERIC = [
  ...MULTI_HOP.map((spec) =>
    spec.doc === "film" ? { ...spec, entities: [...spec.entities, "film"] } : spec,
  ),
  ...["Casablanca", "Vertigo", "Metropolis"].map((title) => ({
    doc: title.toLowerCase(),
    text: `${title} is a classic film.`,
    entities: [title, "film"],
    pairs: [[title, "film"]] as [string, string][],
  })),
];

async function retrievalInput(
  question: string,
  keywords: QueryKeywords,
  mode: "local" | "global",
): Promise<RetrievalInput> {
  const services = fixture!.services;
  const options = resolveQueryOptions(services.config.query, { mode });
  const texts = queryTexts(question, keywords, mode);
  const vectors = await services.embedder.embed(texts);
  return {
    services,
    graph: new QueryGraph(services.store, undefined),
    question,
    keywords,
    options,
    vectors: new Map(texts.map((t, i) => [t, vectors[i] ?? []])),
  };
}

async function seedsFor(low: string[]): Promise<Map<string, number>> {
  return entitySeeds(await retrievalInput("question", { high: [], low }, "local"));
}

describe("entity seeds (linking the question's keywords to entities)", () => {
  it("link each keyword to at most one entity: its exact name, else its closest match", async () => {
    fixture = await buildFixture(MULTI_HOP);
    const seeds = await seedsFor(["Big Stone Gap", "Trigiani"]);
    expect([...seeds.keys()].sort()).toEqual([entityKey("Adriana Trigiani"), entityKey("Big Stone Gap")]);
  });

  it("skip a keyword that matches nothing well enough", async () => {
    fixture = await buildFixture(MULTI_HOP);
    expect([...(await seedsFor(["Big Stone Gap", "quantum chromodynamics"])).keys()]).toEqual([
      entityKey("Big Stone Gap"),
    ]);
  });

  it("weigh a generic entity below a specific one (inverse document frequency)", async () => {
    fixture = await buildFixture(WITH_GENERIC);
    const seeds = await seedsFor(["Big Stone Gap", "film"]);
    const specific = seeds.get(entityKey("Big Stone Gap")) ?? 0;
    const generic = seeds.get(entityKey("film")) ?? 0;
    expect(generic).toBeGreaterThan(0);
    expect(specific).toBeGreaterThan(generic);
  });
});

describe("relationship seeds (global mode)", () => {
  const TOWN_PAIR = relationshipKey(entityKey("Big Stone Gap"), entityKey("Wise County"));

  it("find a relationship by a rare word of the question that its theme words lack", async () => {
    fixture = await buildFixture(WITH_GENERIC);
    // The theme words point at the classic films; only "Wise County" names the town's relationship.
    const question = "Which classic film is set near Wise County?";
    const themes = ["classic film"];
    const seeds = await relationshipSeeds(
      await retrievalInput(question, { high: themes, low: [] }, "global"),
      themes,
    );
    expect(seeds.map((s) => s.id)).toContain(TOWN_PAIR);
  });

  it("drop text hits that share only words nearly every relationship contains", async () => {
    fixture = await buildFixture(MULTI_HOP);
    const question = "Is Wise County a place where a film is?";
    const input = await retrievalInput(question, { high: ["zzz"], low: [] }, "global");
    const seeds = await relationshipSeeds(input, ["zzz"]);
    const all = await fixture.services.store.searchRelationshipText(`${question} zzz`, 40);
    expect(all.length).toBeGreaterThan(seeds.length);
    expect(seeds.map((s) => s.id)).toContain(TOWN_PAIR);
  });

  it("weigh a relationship matching the question's rare names far above one matching only its common words", async () => {
    fixture = await buildFixture(WITH_GENERIC);
    const question = "Which classic film is set near Wise County?";
    const themes = ["classic film"];
    const weights = async (relationshipSeedWeight: "score" | "rank") => {
      const input = await retrievalInput(question, { high: themes, low: [] }, "global");
      const options = { ...input.options, ranking: { ...input.options.ranking, relationshipSeedWeight } };
      const seeds = await relationshipSeeds({ ...input, options }, themes);
      const town = seeds.find((s) => s.id === TOWN_PAIR)?.score ?? 0;
      const weakest = Math.min(...seeds.filter((s) => s.id !== TOWN_PAIR).map((s) => s.score));
      return { town, weakest };
    };
    // Rank fusion gives the 2nd ... 40th hit nearly the head's weight (1/61 vs 1/100): the filler outweighs the match.
    const byRank = await weights("rank");
    expect(byRank.weakest).toBeGreaterThan(byRank.town / 2);
    const byScore = await weights("score");
    expect(byScore.town).toBeGreaterThan(byScore.weakest * 2);
  });
});
