import { afterEach, describe, expect, it } from "vitest";
import { entityKey } from "../../src/merge/keys.js";
import { promptOverheadTexts } from "../../src/query/answer/answer.js";
import { ScopeError } from "../../src/query/graph/scope.js";
import { NOTHING_IN_SCOPE, runQuery } from "../../src/query/query-engine.js";
import { countTokens } from "../../src/util/tokens.js";
import {
  buildFixture,
  FILM,
  type Fixture,
  MULTI_HOP,
  MULTI_HOP_KEYWORDS,
  StageChat,
  TOWN,
} from "./query-fixture.js";

const QUESTION = "Where does the director of the film Big Stone Gap live?";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const keywordsOnly = () => new StageChat({ keywords: () => MULTI_HOP_KEYWORDS });

describe("scope filters", () => {
  it("restrict every mode to the chosen documents, entities and relationships included", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    for (const mode of ["naive", "local", "global", "hybrid", "mix"] as const) {
      const result = await runQuery(fixture.services, QUESTION, {
        mode,
        contextOnly: true,
        docIds: ["person"],
        similarityThreshold: 0,
      });
      expect(result.context.chunks.map((c) => c.docId)).toEqual(result.context.chunks.map(() => "person"));
      expect(result.references.every((r) => r.docId === "person")).toBe(true);
      // Only entities with a source chunk in scope: Big Stone Gap is not mentioned in "person".
      for (const e of result.context.entities)
        expect(["adriana trigiani", "greenwich village"]).toContain(entityKey(e.name));
      for (const r of result.context.relationships) {
        expect([r.source, r.target].sort()).toEqual(["Adriana Trigiani", "Greenwich Village"]);
      }
    }
  });

  it("are applied before ranking: the best in-scope passage is found even when others outrank it", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const top = async (docIds: string[]) =>
      (
        await runQuery(fixture!.services, "Big Stone Gap", {
          mode: "naive",
          contextOnly: true,
          chunkTopK: 1,
          docIds,
        })
      ).context.chunks.map((c) => c.id);
    // Filtering a top-1 list after ranking would leave one of these two empty.
    expect(await top(["film"])).toEqual([fixture.chunkOf(FILM).id]);
    expect(await top(["town"])).toEqual([fixture.chunkOf(TOWN).id]);
  });

  it("filter by metadata key=value", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const result = await runQuery(fixture.services, QUESTION, {
      mode: "mix",
      contextOnly: true,
      metadata: { kind: "place" },
      similarityThreshold: 0,
    });
    expect(result.context.chunks.map((c) => c.id)).toEqual([fixture.chunkOf(TOWN).id]);
  });
});

describe("scope filters naming what no document has", () => {
  const scoped = (scope: { docIds?: string[]; metadata?: Record<string, string> }) =>
    runQuery(fixture!.services, QUESTION, { mode: "mix", contextOnly: true, ...scope });

  it("an unknown document id is an error naming it (and only it) and how to list documents", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const error = await scoped({ docIds: ["person", "persn", "flim"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScopeError);
    expect(error).toMatchObject({ problem: "unknown-document" });
    expect((error as Error).message).toMatch(/Unknown document ids "persn", "flim"/);
    expect((error as Error).message).not.toMatch(/"person"/);
    expect((error as Error).message).toMatch(/kgrag status/);
  });

  it("an unknown metadata key is an error listing the keys that exist", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const error = await scoped({ metadata: { knd: "place" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScopeError);
    expect(error).toMatchObject({ problem: "unknown-metadata-key" });
    expect((error as Error).message).toMatch(/metadata key "knd".*Keys that exist: "kind"/);
  });

  it("a known key with a value no document has is an error listing the values that exist", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const error = await scoped({ metadata: { kind: "places" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScopeError);
    expect(error).toMatchObject({ problem: "unmatched-metadata-value" });
    const message = (error as Error).message;
    expect(message).toMatch(/No document has kind=places/);
    for (const value of ["film", "person", "place"]) expect(message).toContain(`"${value}"`);
  });

  it("existing ids and values that together match nothing are not an error: an empty context, a warning saying why", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const result = await scoped({ docIds: ["person"], metadata: { kind: "place" } });
    expect(result.context.chunks).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/No indexed document matches the scope/)]);
    // With an answer asked for: it says the scope is empty, not that nothing matches the question.
    const answered = await runQuery(fixture.services, QUESTION, {
      mode: "mix",
      docIds: ["person"],
      metadata: { kind: "place" },
    });
    expect(answered.answer).toBe(NOTHING_IN_SCOPE);
    // A scope that holds documents warns of nothing.
    expect((await scoped({ docIds: ["person"] })).warnings).toBeUndefined();
  });
});

describe("token budgets", () => {
  const ask = (options: Parameters<typeof runQuery>[2]) =>
    runQuery(fixture!.services, QUESTION, {
      mode: "hybrid",
      contextOnly: true,
      similarityThreshold: 0,
      ...options,
    });

  it("leave entities or relationships out when their budget is zero", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const full = await ask({});
    expect(full.context.entities.length).toBeGreaterThan(0);
    expect(full.context.relationships.length).toBeGreaterThan(0);
    expect((await ask({ entityTokens: 0 })).context.entities).toEqual([]);
    expect((await ask({ relationshipTokens: 0 })).context.relationships).toEqual([]);
  });

  it("keep everything that fits by exact count even when the byte bound would not fit it", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const full = await ask({});
    const promptTexts = promptOverheadTexts(QUESTION, { responseType: "Multiple Paragraphs", history: [] });
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    // The JSON of the context holds every text the rendered context shows, plus keys and quotes.
    const exactNeed =
      sum(promptTexts.map((t) => countTokens(t))) + countTokens(JSON.stringify(full.context)) + 200;
    // The tokenizer-free bound counts at least the bytes of the prompt and of every passage.
    const boundNeed =
      sum(promptTexts.map((t) => Buffer.byteLength(t))) +
      sum(full.context.chunks.map((c) => Buffer.byteLength(c.text)));
    expect(boundNeed).toBeGreaterThan(exactNeed);
    const snug = await ask({ totalTokens: exactNeed });
    expect(snug.context).toEqual(full.context);
  });

  it("give chunks what is left of the total, keeping a prefix of the ranking", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const full = await ask({});
    expect(full.context.chunks.length).toBeGreaterThanOrEqual(3);
    // Room for the prompt around the context plus about one short passage (each costs ~20 tokens
    // here); the conversation history lifts the prompt above the smallest total allowed.
    const history = [{ role: "user" as const, content: "Tell me about films. ".repeat(20) }];
    const reserved = promptOverheadTexts(QUESTION, { responseType: "Multiple Paragraphs", history })
      .map((text) => countTokens(text))
      .reduce((a, b) => a + b, 0);
    const tight = await ask({ totalTokens: reserved + 30, entityTokens: 0, relationshipTokens: 0, history });
    expect(tight.context.chunks.length).toBeGreaterThan(0);
    expect(tight.context.chunks.length).toBeLessThan(full.context.chunks.length);
    expect(tight.context.chunks.map((c) => c.id)).toEqual(
      full.context.chunks.slice(0, tight.context.chunks.length).map((c) => c.id),
    );
    expect(tight.references.length).toBe(tight.context.chunks.length);
  });

  it("cap the number of chunks at chunkTopK", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    expect((await ask({ chunkTopK: 2 })).context.chunks).toHaveLength(2);
  });

  it("leave nothing in the context when the prompt alone fills the total", async () => {
    fixture = await buildFixture(MULTI_HOP, { chat: keywordsOnly() });
    const history = [{ role: "user" as const, content: "Tell me about films. ".repeat(60) }];
    const none = await ask({ totalTokens: 256, history });
    expect(none.context).toEqual({ entities: [], relationships: [], chunks: [], communities: [] });
    expect(none.references).toEqual([]);
  });
});
