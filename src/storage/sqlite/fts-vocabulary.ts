import type { Statement } from "better-sqlite3";
import type { Sql } from "./connection.js";

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
const MIN_ROWS = 64;

/**
 * The bm25 share of a one-token term in every row that holds it, computed from the index's own
 * statistics instead of by bm25() row by row: the term's postings and counts from fts5vocab, each
 * row's length from the docsize table, the row count and total length from the averages record.
 * The arithmetic is fts5_aux.c's, in its order, and the IDF's logarithm is SQLite's own ln(), so
 * every share equals bm25()'s to the last bit. Terms FTS5 tokenises into several tokens (phrases,
 * "U.S."), tables without a tokenize option or a docsize table, and any disagreement between the
 * postings and the documents return undefined: the caller then asks bm25() itself.
 */
export class VocabularyScores {
  /** The table's tokenize option, read on first use (null: none given, so this class stands aside). */
  private tokenizerOption: string | null | undefined;
  private prepared: { add: Statement; list: Statement; forget: Statement; instances: Statement } | undefined;
  private readonly tokens = new Map<string, string[]>();
  private version = "";
  private lengths: Int32Array | undefined;
  private averages: { rows: number; tokens: number } | undefined;
  private scoredSlowly = 0;

  constructor(
    private readonly sql: Sql,
    private readonly fts: string,
  ) {}

  private get tokenizer(): string | null {
    if (this.tokenizerOption === undefined) {
      const definition = this.sql.column<string>("SELECT sql FROM sqlite_master WHERE name = ?", this.fts)[0];
      this.tokenizerOption = /tokenize\s*=\s*'([^']*)'/i.exec(definition ?? "")?.[1] ?? null;
    }
    return this.tokenizerOption;
  }

  /**
   * The term's postings, or undefined when they must come from bm25(). `rows` is how many rows
   * hold the term (FTS5's own count); `version` names the table's current contents.
   */
  postings(term: string, rows: number, version: string): TermPostings | undefined {
    if (rows < MIN_ROWS) return undefined;
    if (version !== this.version) {
      this.version = version;
      this.lengths = undefined;
      this.averages = undefined;
      this.scoredSlowly = 0;
    }
    this.averages ??= this.readAverages();
    const averages = this.averages;
    if (!this.lengths) {
      if (this.scoredSlowly + rows < averages.rows * LENGTHS_AFTER_SCORED_SHARE) {
        this.scoredSlowly += rows;
        return undefined;
      }
      this.lengths = this.readLengths();
    }
    const token = this.tokenOf(term);
    if (token === undefined) return undefined;
    return this.score(token, rows, averages, this.lengths);
  }

  private score(
    token: string,
    rows: number,
    averages: { rows: number; tokens: number },
    lengths: Int32Array,
  ): TermPostings | undefined {
    const docs = this.statements().instances.get(token) as string | null;
    const counted = countedDocs(docs ?? "");
    if (!counted || counted.rowids.length !== rows || rows === 0) return undefined;
    const { rowids, counts } = counted;
    const idf = this.idf(averages.rows, rowids.length);
    const averageLength = averages.tokens / averages.rows;
    const scores = new Float64Array(rowids.length);
    for (let i = 0; i < rowids.length; i++) {
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
  private idf(rowCount: number, hits: number): number {
    const ratio = (rowCount - hits + 0.5) / (hits + 0.5);
    const idf = this.sql.column<number>("SELECT ln(?)", ratio)[0] ?? 0;
    return idf <= 0 ? 1e-6 : idf;
  }

  /**
   * Tokenises the terms not seen before in one go: a term at a time, the probe table's writes and
   * its vocabulary's opening cost about 190 us each, together a few us a term.
   */
  learnTokens(terms: string[]): void {
    if (this.tokenizer === null) return;
    const unknown = [...new Set(terms)].filter((term) => !this.tokens.has(term));
    if (unknown.length === 0) return;
    const { add, list, forget } = this.statements();
    const found = this.sql.db.transaction(() => {
      for (const [i, term] of unknown.entries()) add.run(i + 1, term);
      const listed = list.all() as { doc: number; term: string }[];
      forget.run();
      return listed;
    })();
    const tokens = unknown.map((): string[] => []);
    // Listed by doc, then offset: each term's tokens in order.
    for (const { doc, term } of found) tokens[doc - 1]?.push(term);
    for (const [i, term] of unknown.entries()) this.tokens.set(term, tokens[i] ?? []);
  }

  /** The one token FTS5 makes of the term, or undefined for none or several (or no known tokenizer). */
  private tokenOf(term: string): string | undefined {
    this.learnTokens([term]);
    const tokens = this.tokens.get(term);
    return tokens?.length === 1 ? tokens[0] : undefined;
  }

  /**
   * A temporary FTS5 table with the same tokenizer turns a term into FTS5's tokens, and an
   * fts5vocab table lists a token's instances. Both live in the connection's temp schema, so a
   * reader still writes nothing to the workspace; their statements are prepared here rather than
   * through Sql, which would count the temp table's writes as the workspace's.
   */
  private statements(): NonNullable<VocabularyScores["prepared"]> {
    if (this.prepared) return this.prepared;
    const probe = `kgrag_tokens_${this.fts}`;
    const db = this.sql.db;
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${probe} USING fts5(text, tokenize = '${this.tokenizer}');
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.${probe}_instances USING fts5vocab(temp, ${probe}, instance);
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.kgrag_instances_${this.fts} USING fts5vocab(main, ${this.fts}, instance);`,
    );
    this.prepared = {
      add: db.prepare(`INSERT INTO temp.${probe} (rowid, text) VALUES (?, ?)`),
      list: db.prepare(`SELECT doc, term FROM temp.${probe}_instances ORDER BY doc, offset`),
      forget: db.prepare(`DELETE FROM temp.${probe}`),
      instances: db
        .prepare(`SELECT group_concat(doc) FROM temp.kgrag_instances_${this.fts} WHERE term = ?`)
        .pluck(true),
    };
    return this.prepared;
  }

  /** FTS5's averages record: the row count, then each column's total tokens (one column here). */
  private readAverages(): { rows: number; tokens: number } {
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
function countedDocs(listed: string): { rowids: Int32Array; counts: Int32Array } | undefined {
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
