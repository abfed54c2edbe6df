import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sql } from "../../src/storage/sqlite/connection.js";
import { matchTerms } from "../../src/storage/sqlite/fts-text.js";
import { VocabularyScores } from "../../src/storage/sqlite/fts-vocabulary.js";

const WORDS = [
  "film",
  "films",
  "filmed",
  "river",
  "Paris",
  "café",
  "born",
  "war",
  "king",
  "novel",
  "the",
  "of",
];

/** mulberry32: a small seeded generator (the test must not depend on Math.random). */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Random words; about one text in twenty also names a zebra (a term with few rows). */
function text(next: (n: number) => number): string {
  const words = Array.from({ length: 2 + next(30) }, () => WORDS[next(WORDS.length)]);
  return [...words, ...(next(20) === 0 ? ["zebra"] : [])].join(" ");
}

/** Sql that notes the statements read through column() (the document lengths are read so). */
class NotingSql extends Sql {
  readonly read: string[] = [];
  override column<Value>(sql: string, ...params: unknown[]): Value[] {
    this.read.push(sql);
    return super.column<Value>(sql, ...params);
  }
}

/** bm25() row by row, as the store read a term's shares before. */
function bm25Postings(db: Database.Database, term: string): { rowids: number[]; scores: number[] } {
  const rows = db
    .prepare("SELECT rowid, -bm25(t) FROM t WHERE t MATCH ? ORDER BY rowid")
    .raw(true)
    .all(matchTerms([term])) as [number, number][];
  return { rowids: rows.map((r) => r[0]), scores: rows.map((r) => r[1]) };
}

function rowsWith(db: Database.Database, term: string): number {
  return db
    .prepare("SELECT count(*) FROM t WHERE t MATCH ?")
    .pluck(true)
    .get(matchTerms([term])) as number;
}

describe("bm25 shares from the index's own statistics (VocabularyScores)", () => {
  let dir: string;
  let file: string;
  let reader: Database.Database;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-fts-vocabulary-"));
    file = join(dir, "fts.sqlite");
    const db = new Database(file);
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(
      text, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`);
    const next = generator(3);
    const insert = db.prepare("INSERT INTO t (rowid, text) VALUES (?, ?)");
    db.transaction(() => {
      for (let row = 1; row <= 2000; row++) insert.run(row, text(next));
    })();
    // Updated rows (deleted, then written again under the same rowid) and deleted ones leave
    // tombstones in the index: their old instances must not count.
    db.transaction(() => {
      for (let row = 5; row <= 2000; row += 7) {
        db.prepare("DELETE FROM t WHERE rowid = ?").run(row);
        if (row % 2 === 0) insert.run(row, text(next));
      }
    })();
    db.close();
    reader = new Database(file, { readonly: true });
  });

  afterAll(async () => {
    reader?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives every share bm25() gives, to the last bit, once the lengths are read", () => {
    const scores = new VocabularyScores(new Sql(reader), "t");
    let fromIndex = 0;
    for (const term of [
      "film",
      "films",
      "FILMED",
      "river",
      "paris",
      "cafe",
      "café",
      "born",
      "war",
      "king",
      "the",
    ]) {
      const rows = rowsWith(reader, term);
      const postings = scores.postings(term, rows, "v1");
      if (!postings) continue;
      fromIndex += 1;
      const expected = bm25Postings(reader, term);
      expect([...postings.rowids], term).toEqual(expected.rowids);
      expect(
        [...postings.scores].every((score, i) => Object.is(score, expected.scores[i])),
        term,
      ).toBe(true);
    }
    // The first common term makes the lengths worth reading; every later one is read from them.
    expect(fromIndex).toBeGreaterThanOrEqual(9);
  });

  it("leaves to bm25() what it cannot score exactly or cheaply", () => {
    const scores = new VocabularyScores(new Sql(reader), "t");
    const film = rowsWith(reader, "film");
    expect(scores.postings("film", film, "v1")).toBeDefined();
    // Two tokens (a phrase, a dotted word), too few rows, a row count the index disagrees with.
    expect(scores.postings("film river", rowsWith(reader, "film river"), "v1")).toBeUndefined();
    expect(scores.postings("u.s", 100, "v1")).toBeUndefined();
    expect(scores.postings("film", 10, "v1")).toBeUndefined();
    expect(scores.postings("film", film + 1, "v1")).toBeUndefined();
  });

  it("reads the lengths only once a version has had an eighth of its rows scored by bm25()", () => {
    const sql = new NotingSql(reader);
    const scores = new VocabularyScores(sql, "t");
    const readLengths = () => sql.read.filter((statement) => statement.includes("t_docsize")).length;
    const rows = reader.prepare("SELECT count(*) FROM t_docsize").pluck(true).get() as number;
    const zebra = rowsWith(reader, "zebra");
    // A rare term, but over MIN_ROWS: it alone does not pay for reading every row's length.
    expect(zebra).toBeGreaterThanOrEqual(64);
    const timesUnderTheShare = Math.ceil(rows / 8 / zebra) - 1;
    expect(timesUnderTheShare).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < timesUnderTheShare; i++)
      expect(scores.postings("zebra", zebra, "v1")).toBeUndefined();
    expect(readLengths()).toBe(0);
    // The term that tips the tally over an eighth of the rows reads the lengths, and is scored from them.
    expect(scores.postings("zebra", zebra, "v1")).toBeDefined();
    expect(readLengths()).toBe(1);
    expect(scores.postings("river", rowsWith(reader, "river"), "v1")).toBeDefined();
    expect(readLengths()).toBe(1);
    // A new version of the table starts over.
    expect(scores.postings("zebra", zebra, "v2")).toBeUndefined();
    expect(readLengths()).toBe(1);
  });

  it("writes nothing to the database it reads (its tokenising table is in the connection's temp schema)", async () => {
    const before = await readFile(file);
    const sql = new Sql(reader);
    const scores = new VocabularyScores(sql, "t");
    scores.learnTokens(["film", "rivers", "café", "film river"]);
    expect(scores.postings("rivers", rowsWith(reader, "rivers"), "v1")).toBeDefined();
    expect(sql.hasWritten()).toBe(false);
    expect(Buffer.compare(await readFile(file), before)).toBe(0);
  });
});
