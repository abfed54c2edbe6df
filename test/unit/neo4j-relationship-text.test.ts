import { describe, expect, it } from "vitest";
import { loadCypher } from "../../src/cypher/cypher-files.js";
import { Neo4jConnection } from "../../src/storage/neo4j/connection.js";
import { searchRelationshipText } from "../../src/storage/neo4j/search.js";
import { relationshipSearchTerms, stemmedTerms } from "../../src/storage/neo4j/search-terms.js";
import {
  BACKFILL_PAGE,
  backfillRelationshipSearchText,
} from "../../src/storage/neo4j/search-text-backfill.js";
import { type Answer, one, ScriptedRunner, storeWith } from "../support/scripted-neo4j-runner.js";
import { changes, makeRelationship } from "../support/storage-fixtures.js";

/** Neo4j is scripted (see scripted-neo4j-runner.ts); the live behaviour is in the contract suite. */

const REL = makeRelationship("Acme Corp", "Bob", { keywords: ["founder"], description: "Bob founded Acme." });

describe("Neo4j relationship full text: writes", () => {
  it("stores the shared search text, stemmed, on every upserted relationship edge", async () => {
    const { runner, store } = storeWith();
    await store.applyGraphChanges(changes({ upsertRelationships: [REL] }));
    const upsert = runner.calls.find((c) => c.name === "store/relationships-upsert");
    const [row] = (upsert?.params.rows ?? []) as { key: string; searchTerms: string }[];
    expect(row).toMatchObject({ key: REL.key, searchTerms: relationshipSearchTerms(REL) });
    expect(row?.searchTerms).toBe("acm corp bob founder bob found acm");
  });

  it("searches the index the schema creates on searchTerms, with the CJK analyzer, and drops the old one", () => {
    const schema = loadCypher("schema/fulltext-indexes").text;
    expect(schema).toMatch(
      /FULLTEXT INDEX kgrag_relationship_terms IF NOT EXISTS\s+FOR \(\)-\[r:RELATED\]-\(\) ON EACH \[r\.searchTerms\]\s+OPTIONS \{indexConfig: \{`fulltext\.analyzer`: 'cjk'\}\};/,
    );
    expect(loadCypher("store/fulltext-relationships").text).toContain(
      "db.index.fulltext.queryRelationships('kgrag_relationship_terms'",
    );
    expect(loadCypher("schema/retired-indexes").text).toContain(
      "DROP INDEX kgrag_relationship_text IF EXISTS",
    );
  });

  it("stems and accent-folds words as SQLite's porter unicode61 tokenizer does, and keeps CJK runs", () => {
    expect(stemmedTerms("Directed the films of Zürich's universities")).toBe(
      "direct the film of zurich s univers",
    );
    expect(stemmedTerms("腾讯 founded 深圳总部")).toBe("腾讯 found 深圳总部");
    expect(stemmedTerms("?!")).toBe("");
  });
});

/** A workspace of this many relationships, as the cached counts report it. */
const countsOf = (relationships: number) =>
  one({
    documents: 1,
    chunks: 1,
    entities: 2,
    relationships,
    communities: 0,
    failedDocuments: 0,
    failedChunks: 0,
    partialChunks: 0,
  });

describe("Neo4j relationship full text: search", () => {
  it("ranks in memory from the search terms, read once per write generation", async () => {
    const { runner, store } = storeWith({
      "store/generation-get": one({ generation: "g1" }),
      "store/counts": countsOf(2),
      "store/relationships-search-terms": () => [
        { id: REL.key, text: relationshipSearchTerms(REL) },
        { id: "other", text: "carol dave met at school" },
      ],
    });
    expect((await store.searchRelationshipText("Who founded Acme?", 3)).map((h) => h.id)).toEqual([REL.key]);
    expect((await store.searchRelationshipText("school", 3, new Set([REL.key]))).length).toBe(0);
    expect((await store.searchRelationshipText("school", 3)).map((h) => h.id)).toEqual(["other"]);
    expect(runner.names().filter((n) => n === "store/relationships-search-terms")).toHaveLength(1);
    expect(runner.names()).not.toContain("store/fulltext-relationships");
  });

  it("goes to Lucene for a workspace with more relationships than neo4j.inMemoryTextRelationships", async () => {
    const { runner, store } = storeWith(
      {
        "store/generation-get": one({ generation: "g1" }),
        "store/counts": countsOf(2),
        "store/fulltext-relationships": one({ fetched: 1, matches: [{ id: REL.key, score: 1.5 }] }),
      },
      undefined,
      { inMemoryTextRelationships: 1 },
    );
    expect(await store.searchRelationshipText("Who founded Acme?", 3)).toEqual([{ id: REL.key, score: 1.5 }]);
    expect(runner.names()).not.toContain("store/relationships-search-terms");
  });

  it("sends the user's words as a Lucene query with the allow list, and returns the hits", async () => {
    const { runner, store } = storeWith({
      "store/fulltext-relationships": one({ fetched: 2, matches: [{ id: REL.key, score: 1.5 }] }),
    });
    const hits = await searchRelationshipText(store.connection, 'Who founded "Acme"?', 3, new Set([REL.key]));
    expect(hits).toEqual([{ id: REL.key, score: 1.5 }]);
    const [call] = runner.calls;
    expect(call).toMatchObject({ kind: "read", name: "store/fulltext-relationships" });
    // Stemmed like the indexed terms; punctuation goes with the tokenizer, stop words before stemming.
    expect(call?.params).toMatchObject({ workspace: "team-a", query: "who OR found OR acm" });
    expect(call?.params.allow).toEqual([REL.key]);
    expect(String(call?.params.topK)).toBe("3");
  });

  it("asks the shared index for more while too few hits of this workspace survive", async () => {
    const fetches: number[] = [];
    const answer: Answer = (params, call) => {
      fetches.push(Number(String(params.fetch)));
      const matches = call === 0 ? [] : [{ id: REL.key, score: 2 }];
      return [{ fetched: Number(String(params.fetch)), matches }];
    };
    const { store } = storeWith({ "store/fulltext-relationships": answer });
    expect(await searchRelationshipText(store.connection, "acme", 1)).toEqual([{ id: REL.key, score: 2 }]);
    expect(fetches).toHaveLength(2);
    expect(fetches[1]).toBeGreaterThan(fetches[0]!);
    expect((await searchRelationshipText(storeWith().store.connection, "acme", 1)).length).toBe(0);
  });

  it("asks nothing for a query with no words, an empty allow list or topK 0", async () => {
    const { runner, store } = storeWith();
    expect(await store.searchRelationshipText("?!*()\"'", 5)).toEqual([]);
    expect(await store.searchRelationshipText("", 5)).toEqual([]);
    expect(await store.searchRelationshipText("acme", 5, new Set())).toEqual([]);
    expect(await store.searchRelationshipText("acme", 0)).toEqual([]);
    expect(runner.calls).toEqual([]);
  });
});

/** Relationship records as relationships-missing-search-text returns them. */
function missingRows(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    relationship: { ...makeRelationship(`a${from + i}`, `b${from + i}`) },
  }));
}

/** The set statement fills every row it is given (no concurrent writer). */
const filledAll: Answer = (params) => [{ filled: (params.rows as unknown[]).length }];

describe("Neo4j relationship full text: backfill of older workspaces", () => {
  it("fills searchTerms of edges lacking them, a page per transaction, until none is left", async () => {
    const runner = new ScriptedRunner({
      "store/relationships-missing-search-text": (_, call) =>
        call === 0 ? missingRows(BACKFILL_PAGE) : missingRows(2, BACKFILL_PAGE),
      "store/relationships-set-search-text": filledAll,
    });
    const connection = new Neo4jConnection(runner, "backfill-pages");
    expect(await backfillRelationshipSearchText(connection)).toBe(BACKFILL_PAGE + 2);
    const sets = runner.calls.filter((c) => c.name === "store/relationships-set-search-text");
    expect(sets.map((c) => (c.params.rows as unknown[]).length)).toEqual([BACKFILL_PAGE, 2]);
    const last = sets[1]?.params.rows as { key: string; searchTerms: string }[];
    const expected = makeRelationship(`a${BACKFILL_PAGE + 1}`, `b${BACKFILL_PAGE + 1}`);
    expect(last[1]).toEqual({ key: expected.key, searchTerms: relationshipSearchTerms(expected) });
    // A read of the done flag, one write transaction per page, then the flag (each write ends with
    // a new generation of the workspace).
    expect(runner.names()[0]).toBe("store/meta-get");
    expect(runner.names().slice(-2)).toEqual(["store/meta-set", "store/generation-bump"]);
    expect(new Set(runner.calls.slice(1, -2).map((c) => c.tx))).toEqual(new Set([1, 2]));
    expect(runner.calls.every((c) => c.params.workspace === "backfill-pages")).toBe(true);
  });

  it("writes nothing when every edge has its text, and checks a workspace once per process", async () => {
    const runner = new ScriptedRunner();
    const connection = new Neo4jConnection(runner, "backfill-once");
    expect(await backfillRelationshipSearchText(connection)).toBe(0);
    expect(runner.names()).toEqual([
      "store/meta-get",
      "store/relationships-missing-search-text",
      "store/generation-bump",
      "store/meta-set",
      "store/generation-bump",
    ]);
    await backfillRelationshipSearchText(connection);
    expect(runner.calls).toHaveLength(5);
    await backfillRelationshipSearchText(new Neo4jConnection(runner, "backfill-other"));
    expect(runner.calls).toHaveLength(10);
  });

  it("only reads its done flag once a workspace was filled, in this process or another", async () => {
    const runner = new ScriptedRunner({ "store/meta-get": () => [{ value: "complete" }] });
    expect(await backfillRelationshipSearchText(new Neo4jConnection(runner, "backfill-done"))).toBe(0);
    expect(runner.names()).toEqual(["store/meta-get"]);
    expect(runner.calls[0]?.tx).toBe(0);
  });

  it("stops at a page that fills nothing, instead of finding the same edges forever", async () => {
    const runner = new ScriptedRunner({
      "store/relationships-missing-search-text": () => missingRows(BACKFILL_PAGE),
      "store/relationships-set-search-text": () => [{ filled: 0 }],
    });
    expect(await backfillRelationshipSearchText(new Neo4jConnection(runner, "backfill-stuck"))).toBe(0);
    // Not marked done: the edges that could not be written are still missing their text.
    expect(runner.names()).toEqual([
      "store/meta-get",
      "store/relationships-missing-search-text",
      "store/relationships-set-search-text",
      "store/generation-bump",
    ]);
  });
});
