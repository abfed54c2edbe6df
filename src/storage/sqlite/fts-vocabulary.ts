import type { Statement } from "better-sqlite3";
import type { Sql } from "./connection.js";
import { matchTerms } from "./fts-text.js";
import type { TableVersion } from "./table-version.js";

/** One term's matches: row ids in ascending order and the term's bm25 share of each. */
export interface TermPostings {
  rowids: Int32Array;
  scores: Float64Array;
}

/** FTS5's bm25 constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/**
 * Scoring a row through FTS5's bm25() costs about ten times what reading the documents' lengths
 * costs per row (a docsize lookup and an instance walk per row, against one pass over the docsize
 * table). The lengths are read once a version of the table has had this share of its rows scored
 * the slow way, so a reader that scores few rows never pays for all of them.
 */
const LENGTHS_AFTER_SCORED_SHARE = 1 / 8;

/**
 * Below this many rows bm25() is the cheaper way: reading a term's instances and tokenising it
 * cost about 200 us whatever its rows, bm25() about 3.5 us a row (measured on the HotpotQA
 * workspace's relationships).
 */
export const VOCABULARY_MIN_ROWS = 64;

/** Above this many rows a term's instance list would be one string of tens of megabytes: bm25() reads it. */
const MAX_ROWS = 2_000_000;

/** Terms whose tokens are remembered (all forgotten at once past it). */
const MAX_REMEMBERED_TERMS = 16_384;

/** Rows of the first term computed here that are compared with bm25() before anything else is trusted. */
const CHECKED_ROWS = 32;

interface Averages {
  rows: number;
  tokens: number;
}

/** What one version of the table's statistics gave, and how many rows bm25() scored under it. */
interface VersionState {
  version: string;
  averages: Averages;
  lengths?: Int32Array;
  scoredSlowly: number;
}

interface Probe {
  add: Statement;
  list: Statement;
  forget: Statement;
  instances: Statement;
}

/**
 * The bm25 share of a one-token term in every row that holds it, computed from the index's own
 * statistics instead of by bm25() row by row: the term's postings and counts from fts5vocab, each
 * row's length from the docsize table, the row count and total length from the averages record,
 * all read in one read transaction. The arithmetic is fts5_aux.c's, in its order, and the IDF's
 * logarithm is SQLite's own ln(); the first term's rows are compared with bm25() itself (a SQLite
 * built to fuse multiply-adds would round differently), so every share equals bm25()'s to the last
 * bit. Undefined, and the caller asks bm25(), for: several tokens (phrases, "U.S."), few or very
 * many rows, a count the postings disagree with, an open transaction on this connection (FTS5
 * writes its averages only at commit), and
 * tables this arithmetic does not cover (several columns, detail other than full, no docsize, no
 * tokenize option); an error or a failed check turns the class off for the connection.
 */
export class VocabularyScores {
  /** The tokenising probe, set up on first use; null once the table is found unsupported or a read failed. */
  private probe: Probe | null | undefined;
  private readonly tokens = new Map<string, string[]>();
  private state: VersionState | undefined;
  private checked = false;

  constructor(
    private readonly sql: Sql,
    private readonly fts: string,
    private readonly version: TableVersion,
  ) {}

  /** The term's postings, or undefined when they must come from bm25(); `rows` is FTS5's count of its rows. */
  postings(term: string, rows: number): TermPostings | undefined {
    if (rows < VOCABULARY_MIN_ROWS || rows > MAX_ROWS || this.sql.db.inTransaction) return undefined;
    const probe = this.ready();
    if (!probe) return undefined;
    this.learnTokens([term]);
    const tokens = this.tokens.get(term);
    if (tokens?.length !== 1) return undefined;
    const token = tokens[0] as string;
    try {
      return this.sql.db.transaction(() => this.inSnapshot(probe, token, rows))();
    } catch {
      this.probe = null;
      return undefined;
    }
  }

  /**
   * Tokenises the terms not seen before in one go: a term at a time, the probe table's writes and
   * its vocabulary's opening cost about 190 us each, together a few us a term. Not inside an open
   * transaction, whose savepoint would make FTS5 write out the connection's pending rows.
   */
  learnTokens(terms: string[]): void {
    if (this.sql.db.inTransaction) return;
    const unknown = [...new Set(terms)].filter((term) => !this.tokens.has(term));
    const probe = unknown.length > 0 ? this.ready() : undefined;
    if (!probe) return;
    try {
      const found = this.sql.db.transaction(() => {
        for (const [i, term] of unknown.entries()) probe.add.run(i + 1, term);
        const listed = probe.list.all() as { doc: number; term: string }[];
        probe.forget.run();
        return listed;
      })();
      const tokens = unknown.map((): string[] => []);
      // Listed by doc, then offset: each term's tokens in order.
      for (const { doc, term } of found) tokens[doc - 1]?.push(term);
      if (this.tokens.size + unknown.length > MAX_REMEMBERED_TERMS) this.tokens.clear();
      for (const [i, term] of unknown.entries()) this.tokens.set(term, tokens[i] ?? []);
    } catch {
      this.probe = null;
    }
  }

  /** Everything from one snapshot: the version checked, the statistics of that version, the instances. */
  private inSnapshot(probe: Probe, token: string, rows: number): TermPostings | undefined {
    // The version as of this snapshot (not the one the caller last saw): the statistics and the
    // instances then come from the same commit, and a count from another disagrees with them.
    const version = this.version.stored();
    if (this.state?.version !== version) {
      this.state = { version, averages: this.readAverages(), scoredSlowly: 0 };
    }
    const state = this.state;
    if (!state.lengths) {
      if (state.scoredSlowly + rows < state.averages.rows * LENGTHS_AFTER_SCORED_SHARE) {
        state.scoredSlowly += rows;
        return undefined;
      }
      state.lengths = this.readLengths();
    }
    const postings = this.score(probe, token, rows, state.averages, state.lengths);
    if (postings && !this.checked) {
      if (!this.agreesWithBm25(token, postings)) {
        this.probe = null;
        return undefined;
      }
      this.checked = true;
    }
    return postings;
  }

  private score(
    probe: Probe,
    token: string,
    rows: number,
    averages: Averages,
    lengths: Int32Array,
  ): TermPostings | undefined {
    const counted = countedDocs((probe.instances.get(token) as string | null) ?? "");
    if (!counted || counted.rowids.length !== rows) return undefined;
    const { rowids, counts } = counted;
    const idf = this.idf(averages.rows, rows);
    if (idf === undefined) return undefined;
    const averageLength = averages.tokens / averages.rows;
    const scores = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      const length = lengths[rowids[i] as number] ?? -1;
      if (length < 0) return undefined;
      const frequency = counts[i] as number;
      // fts5Bm25Function: score += idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))), from 0.
      scores[i] =
        0 + idf * ((frequency * (K1 + 1.0)) / (frequency + K1 * (1 - B + (B * length) / averageLength)));
    }
    return { rowids, scores };
  }

  /** fts5Bm25GetData's IDF, with SQLite's ln() so the logarithm is the one bm25() takes. */
  private idf(rowCount: number, hits: number): number | undefined {
    const ratio = (rowCount - hits + 0.5) / (hits + 0.5);
    // More hits than rows: C's log() would give NaN where SQLite's ln() gives NULL; bm25() decides.
    if (!(ratio > 0)) return undefined;
    const idf = this.sql.column<number>("SELECT ln(?)", ratio)[0] ?? 0;
    return idf <= 0 ? 1e-6 : idf;
  }

  /** Some of the rows compared with bm25() itself, shares to the last bit. */
  private agreesWithBm25(token: string, postings: TermPostings): boolean {
    const step = Math.max(1, Math.floor(postings.rowids.length / CHECKED_ROWS));
    const sample = new Map<number, number>();
    for (let i = 0; i < postings.rowids.length; i += step) {
      sample.set(postings.rowids[i] as number, postings.scores[i] as number);
    }
    const expected = this.sql.tuples<[number, number]>(
      `SELECT rowid, -bm25(${this.fts}) FROM ${this.fts}
       WHERE ${this.fts} MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
      matchTerms([token]),
      JSON.stringify([...sample.keys()]),
    );
    return (
      expected.length === sample.size &&
      expected.every(([rowid, score]) => Object.is(sample.get(rowid), score))
    );
  }

  /**
   * The probe, set up on first use if the table is one this arithmetic covers: one column, full
   * detail, a docsize table, a tokenize option to copy. A temporary FTS5 table with that tokenizer
   * turns a term into FTS5's tokens, and fts5vocab tables list instances; they live in the
   * connection's temp schema, so a reader still writes nothing to the workspace. Their statements
   * are prepared here rather than through Sql, which would count the temp table's writes as the
   * workspace's.
   */
  private ready(): Probe | null {
    if (this.probe !== undefined) return this.probe;
    this.probe = null;
    try {
      const tokenizer = this.supportedTokenizer();
      if (tokenizer !== undefined) this.probe = this.createProbe(tokenizer);
    } catch {
      // A connection that may not write even its temp schema (query_only), or an odd tokenizer.
    }
    return this.probe;
  }

  /** The table's tokenize option (quotes kept doubled), or undefined for a table this class leaves to bm25(). */
  private supportedTokenizer(): string | undefined {
    const definition =
      this.sql.column<string>("SELECT sql FROM sqlite_master WHERE name = ?", this.fts)[0] ?? "";
    const columns = this.sql.column<string>("SELECT name FROM pragma_table_info(?)", this.fts);
    const otherDetail = /\bdetail\s*=\s*'?(?!full\b)\w+/i.test(definition);
    const noSizes = /\bcolumnsize\s*=\s*'?0/i.test(definition);
    if (columns.length !== 1 || otherDetail || noSizes) return undefined;
    return /\btokenize\s*=\s*'((?:[^']|'')*)'/i.exec(definition)?.[1];
  }

  private createProbe(tokenizer: string): Probe {
    const probe = `kgrag_tokens_${this.fts}`;
    const db = this.sql.db;
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${probe} USING fts5(text, tokenize = '${tokenizer}');
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.${probe}_instances USING fts5vocab(temp, ${probe}, instance);
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.kgrag_instances_${this.fts} USING fts5vocab(main, ${this.fts}, instance);`,
    );
    return {
      add: db.prepare(`INSERT INTO temp.${probe} (rowid, text) VALUES (?, ?)`),
      list: db.prepare(`SELECT doc, term FROM temp.${probe}_instances ORDER BY doc, offset`),
      forget: db.prepare(`DELETE FROM temp.${probe}`),
      instances: db
        .prepare(`SELECT group_concat(doc) FROM temp.kgrag_instances_${this.fts} WHERE term = ?`)
        .pluck(true),
    };
  }

  /** FTS5's averages record: the row count, then each column's total tokens (one column here). */
  private readAverages(): Averages {
    const block = this.sql.column<Uint8Array>(`SELECT block FROM ${this.fts}_data WHERE id = 1`)[0];
    if (!block) return { rows: 0, tokens: 0 };
    const rows = readVarint(block, 0);
    const tokens = readVarint(block, rows.next);
    return { rows: rows.value, tokens: tokens.value };
  }

  /** Every row's length in tokens by rowid (-1 where there is no row), read in one statement. */
  private readLengths(): Int32Array {
    const listed =
      this.sql.column<string | null>(
        `SELECT group_concat(id || ':' || hex(sz)) FROM ${this.fts}_docsize`,
      )[0] ?? "";
    const entries = listed === "" ? [] : listed.split(",");
    let last = 0;
    const parsed = entries.map((entry) => {
      const colon = entry.indexOf(":");
      const rowid = Number(entry.slice(0, colon));
      last = Math.max(last, rowid);
      return { rowid, length: readVarint(Buffer.from(entry.slice(colon + 1), "hex"), 0).value };
    });
    const lengths = new Int32Array(last + 1).fill(-1);
    for (const { rowid, length } of parsed) lengths[rowid] = length;
    return lengths;
  }
}

/**
 * Doc ids listed once per instance ("3,3,5"), in ascending order, as rowids with their instance
 * counts; undefined if the list ever goes back (a row's instances would then not be adjacent).
 * Read digit by digit: splitting the text made a string per instance.
 */
export function countedDocs(listed: string): { rowids: Int32Array; counts: Int32Array } | undefined {
  const rowids: number[] = [];
  const counts: number[] = [];
  let doc = 0;
  for (let at = 0; at <= listed.length; at++) {
    const code = at < listed.length ? listed.charCodeAt(at) : COMMA;
    if (code !== COMMA) {
      doc = doc * 10 + (code - ZERO);
      continue;
    }
    const last = rowids.length - 1;
    if (last >= 0 && doc === rowids[last]) counts[last] = (counts[last] as number) + 1;
    else if (last >= 0 && doc < (rowids[last] as number)) return undefined;
    else if (at > 0) {
      rowids.push(doc);
      counts.push(1);
    }
    doc = 0;
  }
  return { rowids: Int32Array.from(rowids), counts: Int32Array.from(counts) };
}

const COMMA = 44;
const ZERO = 48;

/** A SQLite varint (as FTS5 writes them): 7 bits a byte, high bit set while more follow, a full 9th byte. */
function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  return { value: value * 256 + (bytes[at + 8] ?? 0), next: at + 9 };
}
