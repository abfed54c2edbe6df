import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchExpression } from "../../src/storage/sqlite/fts-text.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { changes, makeRelationship, seedDocument } from "../support/storage-fixtures.js";

const WORDS = [
  "film",
  "films",
  "directed",
  "director",
  "river",
  "city",
  "Paris",
  "paris",
  "born",
  "the",
  "of",
  "band",
  "album",
  "released",
  "war",
  "king",
  "queen",
  "novel",
  "written",
  "écrit",
  "café",
  "station",
];

/** A small deterministic generator (the test must not depend on Math.random). */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

function sentences(count: number, seed: number): string[] {
  const next = generator(seed);
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    // Every tenth text repeats an earlier one, so equal scores (ties) occur.
    if (i % 10 === 9) texts.push(texts[i - 5] as string);
    else texts.push(Array.from({ length: 3 + next(25) }, () => WORDS[next(WORDS.length)]).join(" "));
  }
  return texts;
}

/** What FTS5 itself ranks for the OR query: the SQL the store ran before it summed cached shares. */
function fts5Ranking(
  db: Database.Database,
  fts: string,
  owner: string,
  id: string,
  query: string,
  topK: number,
) {
  const match = matchExpression(query);
  if (match === null) return [];
  return db
    .prepare(
      `SELECT o.${id} AS id, best.score FROM (
         SELECT rowid, -bm25(${fts}) AS score FROM ${fts} WHERE ${fts} MATCH ?
         ORDER BY score DESC, rowid LIMIT ?
       ) best JOIN ${owner} o ON o.seq = best.rowid ORDER BY best.score DESC, best.rowid`,
    )
    .all(match, topK);
}

/** What FTS5 ranks among allowed owners: the SQL the store ran for scoped searches before. */
function fts5ScopedRanking(
  db: Database.Database,
  tables: { fts: string; owner: string; id: string },
  query: string,
  allow: string[],
  topK: number,
) {
  const { fts, owner, id } = tables;
  return db
    .prepare(
      `SELECT o.${id} AS id, -bm25(${fts}) AS score
       FROM ${fts} JOIN ${owner} o ON o.seq = ${fts}.rowid
       WHERE ${fts} MATCH ? AND o.${id} IN (SELECT value FROM json_each(?))
       ORDER BY score DESC, o.${id} LIMIT ?`,
    )
    .all(matchExpression(query), JSON.stringify(allow), topK);
}

const QUERIES = [
  "film",
  "Who directed the film?",
  "film Film FILM films",
  "Paris paris café",
  "the of the",
  "ecrit cafe",
  "king queen war novel written released",
  "nothing matches xyzzy",
  "river city station band album born",
];

describe("unscoped BM25 summed from cached per-term scores", () => {
  let dir: string;
  let store: SqliteGraphStore;
  let reader: Database.Database;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-term-scores-"));
    store = await openSqliteStore(dir);
    const texts = sentences(240, 7);
    // Chunk ids hash the text, so the repeated texts go to a second document.
    await seedDocument(
      store,
      "d1",
      texts.filter((_, i) => i % 10 !== 9),
    );
    await seedDocument(
      store,
      "d2",
      texts.filter((_, i) => i % 10 === 9),
    );
    await store.applyGraphChanges(
      changes({
        upsertRelationships: sentences(300, 11).map((text, i) =>
          makeRelationship(`E${i}`, `F${i % 37}`, {
            description: text,
            keywords: [WORDS[i % WORDS.length] as string],
          }),
        ),
      }),
    );
    await store.refreshIndexes();
    reader = new Database(sqliteFile(dir), { readonly: true });
  });

  afterAll(async () => {
    reader?.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("ranks chunks exactly as FTS5's own OR query does, scores to the last bit", async () => {
    for (const query of QUERIES) {
      for (const topK of [1, 5, 50, 1000]) {
        const expected = fts5Ranking(reader, "chunks_fts", "chunks", "id", query, topK);
        expect(await store.searchChunkText(query, topK), `${query} @${topK}`).toEqual(expected);
      }
    }
    expect((await store.searchChunkText("film", 5)).length).toBe(5);
  });

  it("ranks relationships exactly as FTS5 does, asked twice (the second from the cache)", async () => {
    for (const round of [1, 2]) {
      for (const query of QUERIES) {
        const expected = fts5Ranking(reader, "relationships_fts", "relationships", "key", query, 40);
        expect(await store.searchRelationshipText(query, 40), `${query} round ${round}`).toEqual(expected);
      }
    }
  });

  it("leaves nothing of a wider search in the next, narrower one (the touched rows are kept between calls)", async () => {
    const wide = "river city station band album born king queen war novel written released";
    for (const query of [wide, "ecrit cafe", wide, "nothing matches xyzzy", "river"]) {
      const expected = fts5Ranking(reader, "relationships_fts", "relationships", "key", query, 40);
      expect(await store.searchRelationshipText(query, 40), query).toEqual(expected);
    }
  });

  it("ranks an allowed set exactly as FTS5's scoped query does, ties by id", async () => {
    const chunkIds = reader.prepare("SELECT id FROM chunks ORDER BY seq").pluck().all() as string[];
    const keys = reader.prepare("SELECT key FROM relationships ORDER BY seq").pluck().all() as string[];
    const chunks = { fts: "chunks_fts", owner: "chunks", id: "id" };
    const relationships = { fts: "relationships_fts", owner: "relationships", id: "key" };
    for (const every of [1, 3, 7]) {
      const allowChunks = [...chunkIds.filter((_, i) => i % every === 0), "no such chunk"];
      const allowKeys = keys.filter((_, i) => i % every === 1);
      for (const query of QUERIES) {
        for (const topK of [1, 5, 1000]) {
          const label = `${query} every ${every} @${topK}`;
          expect(await store.searchChunkText(query, topK, new Set(allowChunks)), label).toEqual(
            fts5ScopedRanking(reader, chunks, query, allowChunks, topK),
          );
          expect(await store.searchRelationshipText(query, topK, new Set(allowKeys)), label).toEqual(
            fts5ScopedRanking(reader, relationships, query, allowKeys, topK),
          );
        }
      }
    }
  });

  it("sees rows written after the scores were cached", async () => {
    const before = await store.searchRelationshipText("zeppelin", 5);
    expect(before).toEqual([]);
    const airship = makeRelationship("Zeppelin", "Friedrichshafen", {
      description: "The zeppelin was built in Friedrichshafen.",
    });
    await store.applyGraphChanges(changes({ upsertRelationships: [airship] }));
    expect((await store.searchRelationshipText("zeppelin", 5)).map((hit) => hit.id)).toEqual([airship.key]);
  });

  it("in another connection, keeps its scores across commits that leave the index alone and sees a flush", async () => {
    const other = await openSqliteStore(dir);
    try {
      const query = "Who built the airship in Lakehurst?";
      const first = await other.searchRelationshipText(query, 10);
      // A commit that queues full-text rows but does not index them yet, as an indexer does.
      const airship = makeRelationship("Hindenburg", "Lakehurst", {
        description: "The airship burned at Lakehurst.",
      });
      await store.applyGraphChanges(changes({ upsertRelationships: [airship] }));
      await store.upsertDocument({ ...(await store.getDocument("d1"))!, title: "renamed" });
      expect(await other.searchRelationshipText(query, 10)).toEqual(first);
      await store.refreshIndexes();
      const expected = fts5Ranking(reader, "relationships_fts", "relationships", "key", query, 10);
      expect(expected.map((hit) => (hit as { id: string }).id)).toContain(airship.key);
      expect(await other.searchRelationshipText(query, 10)).toEqual(expected);
      expect((await other.searchChunkText("film", 50)).length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe("chunk search under a postings budget (sqliteSearch.chunkPostingBudget)", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-chunk-budget-"));
    const store = await openSqliteStore(dir);
    // "harbour" is in every passage, "lighthouse" in two, "keeper" in one.
    await seedDocument(store, "d1", [
      "The harbour master keeps the lighthouse.",
      "A keeper rowed across the harbour to the lighthouse.",
      "Boats left the harbour at dawn.",
      "Fishermen mended nets by the harbour.",
      "The harbour froze in the long winter.",
      "Gulls circled over the harbour wall.",
    ]);
    await store.close();
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const search = async (budget: number | undefined, query: string, allow?: Set<string>) => {
    const store = await openSqliteStore(
      dir,
      budget === undefined ? {} : { search: { chunkPostingBudget: budget } },
    );
    try {
      return await store.searchChunkText(query, 10, allow);
    } finally {
      await store.close();
    }
  };

  it("reads every term while the postings fit, and leaves the commonest out when they do not", async () => {
    const query = "keeper lighthouse harbour";
    const everyTerm = await search(undefined, query);
    expect(everyTerm).toHaveLength(6);
    // 1 + 2 postings fit a budget of 3; the 6 of "harbour" do not.
    const rareTerms = await search(3, query);
    expect(rareTerms).toHaveLength(2);
    expect(rareTerms.map((hit) => hit.id)).toEqual(everyTerm.slice(0, 2).map((hit) => hit.id));
    // Only the rarest fits a budget of 1.
    expect(await search(1, query)).toHaveLength(1);
  });

  it("always reads the rarest term, so a query of common words still finds passages", async () => {
    expect(await search(1, "the harbour")).toHaveLength(6);
  });

  it("applies the same terms to a scoped search", async () => {
    const all = await search(undefined, "keeper lighthouse harbour");
    const allow = new Set(all.map((hit) => hit.id));
    expect(await search(3, "keeper lighthouse harbour", allow)).toHaveLength(2);
  });
});
