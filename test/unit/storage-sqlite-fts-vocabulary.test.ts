import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sql } from "../../src/storage/sqlite/connection.js";
import { matchTerms } from "../../src/storage/sqlite/fts-text.js";
import { countedDocs, VocabularyScores } from "../../src/storage/sqlite/fts-vocabulary.js";
import { TableVersion } from "../../src/storage/sqlite/table-version.js";

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
const PORTER = "tokenize = 'porter unicode61 remove_diacritics 2'";

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

/** Random words; about one text in twenty also names zebra stripes (always together, in that order). */
function text(next: (n: number) => number): string {
  const words = Array.from({ length: 2 + next(30) }, () => WORDS[next(WORDS.length)]);
  return [...words, ...(next(20) === 0 ? ["zebra", "stripes"] : [])].join(" ");
}

/** Sql that notes the statements read through column() and can change what one of them returns. */
class NotingSql extends Sql {
  readonly read: string[] = [];
  alter?: (sql: string, values: unknown[]) => unknown[] | undefined;
  override column<Value>(sql: string, ...params: unknown[]): Value[] {
    this.read.push(sql);
    const values = super.column<Value>(sql, ...params);
    return (this.alter?.(sql, values) as Value[] | undefined) ?? values;
  }
}

/** bm25() row by row, as the store read a term's shares before. */
function bm25Postings(db: Database.Database, table: string, term: string) {
  const rows = db
    .prepare(`SELECT rowid, -bm25(${table}) FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`)
    .raw(true)
    .all(matchTerms([term])) as [number, number][];
  return { rowids: rows.map((r) => r[0]), scores: rows.map((r) => r[1]) };
}

function rowsWith(db: Database.Database, term: string, table = "t"): number {
  return db
    .prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`)
    .pluck(true)
    .get(matchTerms([term])) as number;
}

/** The row count in FTS5's averages record (what bm25() divides by), decoded here independently. */
function averagesRowCount(db: Database.Database): number {
  const block = db.prepare("SELECT block FROM t_data WHERE id = 1").pluck(true).get() as Buffer;
  let value = 0;
  for (const byte of block) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}

/** Asks common terms until one is scored from the lengths (read once an eighth of the rows were asked). */
function primed(db: Database.Database, scores: VocabularyScores): boolean {
  return ["the", "of", "film", "river", "war", "king", "born"].some(
    (term) => scores.postings(term, rowsWith(db, term)) !== undefined,
  );
}

/** A reader as the store opens one: a read-write WAL connection, with the table's version. */
function reader(file: string, sql?: Sql) {
  const db = sql?.db ?? new Database(file);
  const readSql = sql ?? new Sql(db);
  return { db, sql: readSql, scores: new VocabularyScores(readSql, "t", new TableVersion(readSql, "t")) };
}

describe("bm25 shares from the index's own statistics (VocabularyScores)", () => {
  let dir: string;
  let file: string;
  let writer: Database.Database;
  let writerVersion: TableVersion;
  const opened: Database.Database[] = [];
  const open = (sql?: Sql) => {
    const r = reader(file, sql);
    opened.push(r.db);
    return r;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-fts-vocabulary-"));
    file = join(dir, "fts.sqlite");
    writer = new Database(file);
    writer.pragma("journal_mode = WAL");
    writer.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE VIRTUAL TABLE t USING fts5(text, content = '', contentless_delete = 1, ${PORTER});`);
    writerVersion = new TableVersion(new Sql(writer), "t");
    const next = generator(3);
    const insert = writer.prepare("INSERT INTO t (rowid, text) VALUES (?, ?)");
    writer.transaction(() => {
      for (let row = 1; row <= 2000; row++) insert.run(row, text(next));
      writerVersion.bump();
    })();
    // Updated rows (deleted, then written again under the same rowid) and deleted ones leave
    // tombstones in the index: their old instances must not count.
    writer.transaction(() => {
      for (let row = 5; row <= 2000; row += 7) {
        writer.prepare("DELETE FROM t WHERE rowid = ?").run(row);
        if (row % 2 === 0) insert.run(row, text(next));
      }
      writerVersion.bump();
    })();
  });

  afterAll(async () => {
    for (const db of opened) db.close();
    writer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives every share bm25() gives, to the last bit, once the lengths are read", () => {
    const { db, scores } = open();
    let fromIndex = 0;
    for (const term of [
      "film",
      "films",
      "river",
      "paris",
      "café",
      "born",
      "war",
      "king",
      "novel",
      "the",
      "zebra",
    ]) {
      const postings = scores.postings(term, rowsWith(db, term));
      if (!postings) continue;
      fromIndex += 1;
      const expected = bm25Postings(db, "t", term);
      expect([...postings.rowids], term).toEqual(expected.rowids);
      expect(
        [...postings.scores].every((score, i) => Object.is(score, expected.scores[i])),
        term,
      ).toBe(true);
    }
    // The first common term makes the lengths worth reading; every later one is read from them.
    expect(fromIndex).toBeGreaterThanOrEqual(10);
  });

  it("leaves to bm25() what it cannot score exactly or cheaply", () => {
    const { db, scores } = open();
    const film = rowsWith(db, "film");
    expect(scores.postings("film", film)).toBeDefined();
    // Two tokens, though the phrase has exactly the rows of its first token.
    expect(rowsWith(db, "zebra stripes")).toBe(rowsWith(db, "zebra"));
    expect(scores.postings("zebra stripes", rowsWith(db, "zebra stripes"))).toBeUndefined();
    expect(scores.postings("zebra", rowsWith(db, "zebra"))).toBeDefined();
    // Too few rows, and a count the postings disagree with.
    expect(scores.postings("film", 10)).toBeUndefined();
    expect(scores.postings("film", film + 1)).toBeUndefined();
  });

  it("leaves a term to bm25() when a row it holds has no length", () => {
    const sql = new NotingSql(new Database(file));
    const { db, scores } = open(sql);
    const firstRiver = bm25Postings(db, "t", "river").rowids[0] as number;
    // The lengths as read, less the first row holding "river".
    sql.alter = (statement, values) =>
      statement.includes("t_docsize")
        ? [
            String(values[0])
              .split(",")
              .filter((entry) => !entry.startsWith(`${firstRiver}:`))
              .join(","),
          ]
        : undefined;
    expect(scores.postings("river", rowsWith(db, "river"))).toBeUndefined();
    expect(scores.postings("war", rowsWith(db, "war"))).toBeDefined();
  });

  it("turns itself off when its first shares disagree with bm25()", () => {
    const sql = new NotingSql(new Database(file));
    const { db, scores } = open(sql);
    // An IDF off by one unit in the last place, as a differently built SQLite could round.
    sql.alter = (statement, values) =>
      statement === "SELECT ln(?)" ? [(values[0] as number) * (1 + Number.EPSILON)] : undefined;
    // "zebra" is in few rows, so its IDF is the logarithm's (not the floor of 1e-6). Asked until the
    // lengths are read: the last answer comes from the comparison with bm25().
    const zebra = rowsWith(db, "zebra");
    const times = Math.ceil(averagesRowCount(db) / 8 / zebra);
    for (let i = 0; i < times; i++) expect(scores.postings("zebra", zebra)).toBeUndefined();
    expect(sql.read.filter((statement) => statement.includes("t_docsize"))).toHaveLength(1);
    sql.alter = undefined;
    expect(scores.postings("war", rowsWith(db, "war"))).toBeUndefined();
  });

  it("reads the lengths only once a version has had an eighth of its rows scored by bm25()", () => {
    const sql = new NotingSql(new Database(file));
    const { db, scores } = open(sql);
    const readLengths = () => sql.read.filter((statement) => statement.includes("t_docsize")).length;
    const zebra = rowsWith(db, "zebra");
    // A rare term, but over the minimum: it alone does not pay for reading every row's length.
    expect(zebra).toBeGreaterThanOrEqual(64);
    const timesUnderTheShare = Math.ceil(averagesRowCount(db) / 8 / zebra) - 1;
    expect(timesUnderTheShare).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < timesUnderTheShare; i++) expect(scores.postings("zebra", zebra)).toBeUndefined();
    expect(readLengths()).toBe(0);
    // The term that tips the tally over an eighth of the rows reads the lengths, and is scored from them.
    expect(scores.postings("zebra", zebra)).toBeDefined();
    expect(readLengths()).toBe(1);
    expect(scores.postings("river", rowsWith(db, "river"))).toBeDefined();
    expect(readLengths()).toBe(1);
  });

  it("takes the statistics of the commit it reads the instances from, though the caller saw an older one", () => {
    const { db, sql, scores } = open();
    expect(primed(db, scores)).toBe(true);
    // In one synchronous stretch: the reader has seen the table's version, then another connection
    // commits rows that change the row count and the average length.
    new TableVersion(sql, "t").current();
    writer.transaction(() => {
      writer.prepare("INSERT INTO t (rowid, text) VALUES (5000, 'river war king the of born')").run();
      writerVersion.bump();
    })();
    expect(primed(db, scores)).toBe(true);
    const river = scores.postings("river", rowsWith(db, "river"));
    const expected = bm25Postings(db, "t", "river");
    expect([...(river?.rowids ?? [])]).toEqual(expected.rowids);
    expect([...(river?.scores ?? [])].every((score, i) => Object.is(score, expected.scores[i]))).toBe(true);
  });

  it("leaves a transaction with full-text writes of its own to bm25() (FTS5 writes its averages at commit)", () => {
    const { db, scores } = open();
    expect(primed(db, scores)).toBe(true);
    scores.learnTokens(["river"]);
    db.exec("BEGIN");
    try {
      // A row of its own without "river": every "river" row's length is known, but the averages
      // bm25() uses now are not yet written.
      db.prepare("INSERT INTO t (rowid, text) VALUES (5001, 'film war king the of')").run();
      expect(scores.postings("river", rowsWith(db, "river"))).toBeUndefined();
    } finally {
      db.exec("ROLLBACK");
    }
    expect(scores.postings("river", rowsWith(db, "river"))).toBeDefined();
  });

  it("writes nothing to the workspace's files (its tokenising table is in the connection's temp schema)", async () => {
    const before = [await readFile(file), await readFile(`${file}-wal`)];
    const { db, sql, scores } = open();
    scores.learnTokens(["film", "rivers", "café", "film river"]);
    expect(scores.postings("rivers", rowsWith(db, "rivers"))).toBeDefined();
    expect(sql.hasWritten()).toBe(false);
    expect(Buffer.compare(await readFile(file), before[0] as Buffer)).toBe(0);
    expect(Buffer.compare(await readFile(`${file}-wal`), before[1] as Buffer)).toBe(0);
  });
});

describe("tables VocabularyScores covers and those it leaves to bm25()", () => {
  const build = (definition: string) => {
    const db = new Database(":memory:");
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE VIRTUAL TABLE t USING fts5(${definition});`);
    const next = generator(11);
    const columns = definition.startsWith("a, b") ? 2 : 1;
    const insert = db.prepare(`INSERT INTO t VALUES (${columns === 2 ? "?, ?" : "?"})`);
    for (let row = 0; row < 1200; row++) insert.run(...Array.from({ length: columns }, () => text(next)));
    const sql = new Sql(db);
    return { db, scores: new VocabularyScores(sql, "t", new TableVersion(sql, "t")) };
  };
  const bothWays = (db: Database.Database, scores: VocabularyScores, term: string) => {
    // Enough scored first for the lengths to be read.
    scores.postings("the", rowsWith(db, "the"));
    return { mine: scores.postings(term, rowsWith(db, term)), theirs: bm25Postings(db, "t", term) };
  };

  it("copies a tokenize option with doubled quotes and scores exactly", () => {
    const { db, scores } = build("text, tokenize = 'unicode61 tokenchars ''.'''");
    const { mine, theirs } = bothWays(db, scores, "river");
    expect(mine).toBeDefined();
    expect([...(mine?.scores ?? [])].every((score, i) => Object.is(score, theirs.scores[i]))).toBe(true);
  });

  for (const definition of [
    `a, b, ${PORTER}`,
    `text, detail = column, ${PORTER}`,
    `text, detail = none, ${PORTER}`,
    `text, columnsize = 0, ${PORTER}`,
    "text",
  ]) {
    it(`leaves fts5(${definition}) to bm25() without an error`, () => {
      const { db, scores } = build(definition);
      expect(bothWays(db, scores, "river").mine).toBeUndefined();
    });
  }

  it("leaves everything to bm25() on a connection that may not write even its temp schema", () => {
    const { db, scores } = build(`text, ${PORTER}`);
    db.pragma("query_only = 1");
    expect(bothWays(db, scores, "river").mine).toBeUndefined();
  });
});

describe("countedDocs", () => {
  it("counts each doc's instances, and gives up on a list that goes back", () => {
    expect(countedDocs("3,3,5,9,9,9")).toEqual({
      rowids: Int32Array.from([3, 5, 9]),
      counts: Int32Array.from([2, 1, 3]),
    });
    expect(countedDocs("")).toEqual({ rowids: new Int32Array(0), counts: new Int32Array(0) });
    expect(countedDocs("3,5,4")).toBeUndefined();
  });
});
