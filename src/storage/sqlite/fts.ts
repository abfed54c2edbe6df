import type { ScoredId } from "../../types.js";
import { chunkUnits } from "../chunk-units.js";
import { relationshipSearchText } from "../relationship-search-text.js";
import { queryTerms, segmentForIndex } from "../text/query-terms.js";
import { affordableTerms, RELATIONSHIP_POSTING_BUDGET } from "../text/term-budget.js";
import { idList, type Sql } from "./connection.js";
import { TermScores } from "./fts-term-scores.js";
import { matchExpression, matchTerms } from "./fts-text.js";
import { GenerationMap } from "./generation-map.js";
import { TableVersion } from "./table-version.js";

/** An entity's name counts this many times more than its description in bm25. */
const ENTITY_NAME_WEIGHT = 5;

type FtsKind = "chunk" | "entity" | "relationship";

export interface FullTextOptions {
  /** Beyond it the remembered owner ids are dropped (config sqliteReadCache.maxSearchHitIds). */
  maxOwnerIds: number;
  /** Beyond it the remembered entity searches are dropped (config sqliteReadCache.maxEntitySearches). */
  maxEntitySearches?: number;
  /** Postings a chunk search may read (config sqliteSearch.chunkPostingBudget); unbounded when left out. */
  chunkPostingBudget?: number;
}

/**
 * A chunk's sentence units (Small-to-Big) live in chunk_units_fts at rowid seq * UNIT_STRIDE + i,
 * so a unit names its parent chunk by integer division and a chunk's units are one rowid range.
 */
const UNIT_STRIDE = 1024;
/** Units fetched per parent wanted: a parent can match with several of its sentences. */
const UNITS_PER_PARENT = 4;

/**
 * FTS5 indexes over chunk text, entity name/description and relationship search text (see
 * relationshipSearchText), keyed by the owner's `seq` rowid.
 *
 * Writes only queue the row in fts_pending; the queue is indexed in one batch before the next
 * search. An entity is re-described at every merge that mentions it, so indexing it each time
 * would cost O(mentions x description length) and one small FTS segment per commit; batching
 * indexes each row once, in its final form. Scores are negated bm25: higher is better.
 */
export class FullTextIndex {
  /** Per-term bm25 shares of the unscoped searches (see fts-term-scores.ts). */
  private readonly termScores: Record<"chunk" | "relationship", TermScores>;

  /** Moved by every write to a kind's full-text tables, so caches of their statistics know. */
  private readonly versions: Record<FtsKind, TableVersion>;
  /** Owner ids of the rowids unscoped searches returned, per kind, while the data is unchanged. */
  private readonly ownerIds: Record<FtsKind, GenerationMap<number, string>>;

  /** Entity searches' hits by depth and MATCH expression, while the data is unchanged. */
  private readonly entitySearches: GenerationMap<string, ScoredId[]>;

  private readonly chunkPostingBudget: number;

  constructor(
    private readonly sql: Sql,
    options: FullTextOptions,
  ) {
    const { maxOwnerIds, maxEntitySearches = 0 } = options;
    this.chunkPostingBudget = options.chunkPostingBudget ?? Number.POSITIVE_INFINITY;
    this.entitySearches = new GenerationMap(sql, maxEntitySearches);
    this.ownerIds = {
      chunk: new GenerationMap(sql, maxOwnerIds),
      entity: new GenerationMap(sql, maxOwnerIds),
      relationship: new GenerationMap(sql, maxOwnerIds),
    };
    this.versions = {
      chunk: new TableVersion(sql, "chunks_fts"),
      entity: new TableVersion(sql, "entities_fts"),
      relationship: new TableVersion(sql, "relationships_fts"),
    };
    this.termScores = {
      chunk: new TermScores(sql, "chunks_fts", this.versions.chunk),
      relationship: new TermScores(sql, "relationships_fts", this.versions.relationship),
    };
  }

  queueChunk(seq: number): void {
    this.queue("chunk", seq);
  }

  queueEntity(seq: number): void {
    this.queue("entity", seq);
  }

  queueRelationship(seq: number): void {
    this.queue("relationship", seq);
  }

  removeChunks(seqs: number[]): void {
    if (seqs.length === 0) return;
    const list = JSON.stringify(seqs);
    this.sql.run("DELETE FROM chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))", list);
    this.removeUnits(seqs);
    this.versions.chunk.bump();
    this.sql.run(
      "DELETE FROM fts_pending WHERE kind = 'chunk' AND seq IN (SELECT value FROM json_each(?))",
      list,
    );
  }

  removeEntity(seq: number): void {
    this.sql.run("DELETE FROM entities_fts WHERE rowid = ?", seq);
    this.versions.entity.bump();
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'entity' AND seq = ?", seq);
  }

  removeRelationship(seq: number): void {
    this.sql.run("DELETE FROM relationships_fts WHERE rowid = ?", seq);
    this.versions.relationship.bump();
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'relationship' AND seq = ?", seq);
  }

  /** `allow` restricts candidates inside the query, so top-k is taken among allowed chunks only. */
  searchChunks(query: string, topK: number, allow?: Set<string>): ScoredId[] {
    this.flush("chunk");
    const terms = affordableTerms(
      queryTerms(query),
      (term) => this.termScores.chunk.rowsWith(term),
      this.chunkPostingBudget,
    );
    const tables = { owner: "chunks", id: "id" };
    return this.searchOwners("chunk", tables, terms, topK, allow);
  }

  /**
   * Small-to-Big: BM25 over the chunks' sentences, each chunk ranked by its best sentence (the
   * parent is returned, scored by that sentence). `allow` filters parents after ranking, so a
   * scoped query fetches deeper.
   */
  searchChunkUnits(query: string, topK: number, allow?: Set<string>): ScoredId[] {
    const match = matchExpression(query);
    if (match === null || topK <= 0 || allow?.size === 0) return [];
    this.flush("chunk");
    const depth = topK * UNITS_PER_PARENT * (allow ? 4 : 1);
    const units = this.sql.all<{ seq: number; score: number }>(
      `SELECT rowid / ${UNIT_STRIDE} AS seq, -bm25(chunk_units_fts) AS score FROM chunk_units_fts
       WHERE chunk_units_fts MATCH ? ORDER BY score DESC, rowid LIMIT ?`,
      match,
      depth,
    );
    const best = new Map<number, number>();
    for (const unit of units) if (!best.has(unit.seq)) best.set(unit.seq, unit.score);
    const ids = new Map(
      this.sql
        .all<{ seq: number; id: string }>(
          "SELECT seq, id FROM chunks WHERE seq IN (SELECT value FROM json_each(?))",
          JSON.stringify([...best.keys()]),
        )
        .map((row) => [row.seq, row.id]),
    );
    const parents: ScoredId[] = [];
    for (const [seq, score] of best) {
      const id = ids.get(seq);
      if (id !== undefined && (!allow || allow.has(id))) parents.push({ id, score });
    }
    return parents.slice(0, topK);
  }

  /**
   * Relationship keys, with `allow` applied before top-k as for chunks. Relationships outnumber
   * chunks many times over, so the query's commonest terms are left out (see storage/text/term-budget.ts; chunks have
   * their own budget, config sqliteSearch.chunkPostingBudget).
   */
  searchRelationships(query: string, topK: number, allow?: Set<string>): ScoredId[] {
    this.flush("relationship");
    const terms = affordableTerms(
      queryTerms(query),
      (term) => this.termScores.relationship.rowsWith(term),
      RELATIONSHIP_POSTING_BUDGET,
    );
    const tables = { owner: "relationships", id: "key" };
    return this.searchOwners("relationship", tables, terms, topK, allow);
  }

  searchEntities(query: string, topK: number): ScoredId[] {
    const match = matchExpression(query);
    if (match === null || topK <= 0) return [];
    this.flush("entity");
    const searches = this.entitySearches.current(1);
    const key = `${topK} ${match}`;
    let hits = searches.get(key);
    if (!hits) {
      hits = this.sql.all<ScoredId>(
        `SELECT e.key AS id, -bm25(entities_fts, ${ENTITY_NAME_WEIGHT}, 1) AS score
         FROM entities_fts JOIN entities e ON e.seq = entities_fts.rowid
         WHERE entities_fts MATCH ? ORDER BY score DESC, e.key LIMIT ?`,
        match,
        topK,
      );
      if (searches.size < this.entitySearches.maxEntries) searches.set(key, hits);
    }
    // Callers may change what they get; the memo keeps its own.
    return hits.map((hit) => ({ ...hit }));
  }

  /**
   * BM25 over one single-column FTS table (the OR of the terms), joined to its owner table by seq.
   * Scores are summed from cached per-term shares (see fts-term-scores.ts): unscoped, the best rows
   * are found and only those joined, ties going to the older row; scoped, only the allowed rows
   * are scored, ties going to the smaller id.
   */
  private searchOwners(
    kind: "chunk" | "relationship",
    tables: { owner: string; id: string },
    terms: string[],
    topK: number,
    allow?: Set<string>,
  ): ScoredId[] {
    const match = matchTerms(terms);
    if (match === null || topK <= 0 || allow?.size === 0) return [];
    this.flush(kind);
    const { owner, id } = tables;
    if (!allow) {
      const best = this.termScores[kind].top(terms, topK);
      const ids = this.ownerIdsOf(
        kind,
        best.map((b) => b.rowid),
        (rowids) =>
          this.sql.all<{ seq: number; id: string }>(
            `SELECT seq, ${id} AS id FROM ${owner} WHERE seq IN (SELECT value FROM json_each(?))`,
            JSON.stringify(rowids),
          ),
      );
      return best.flatMap(({ rowid, score }) => {
        const owned = ids.get(rowid);
        return owned === undefined ? [] : [{ id: owned, score }];
      });
    }
    // Scoped: only the allowed rows are scored, from the same cached shares (FTS5 scored every row
    // matching any term, 100 ms a query at 60,000 passages holding the question's common words).
    const allowed = this.sql.all<{ seq: number; id: string }>(
      `SELECT seq, ${id} AS id FROM ${owner} WHERE ${id} IN (SELECT value FROM json_each(?))`,
      idList(allow),
    );
    const scores = this.termScores[kind].scoresOf(
      terms,
      allowed.map((row) => row.seq),
    );
    return allowed
      .flatMap(({ seq, id: owned }) => {
        const score = scores.get(seq);
        return score === undefined ? [] : [{ id: owned, score }];
      })
      .sort((a, b) => b.score - a.score || sqliteTextOrder(a.id, b.id))
      .slice(0, topK);
  }

  /**
   * The owner id of each rowid, read only for rowids not seen since the data last changed: repeat
   * queries hit the same rows, and the join was a tenth of a relationship search.
   */
  private ownerIdsOf(
    kind: FtsKind,
    rowids: number[],
    read: (missing: number[]) => { seq: number; id: string }[],
  ): Map<number, string> {
    const known = this.ownerIds[kind].current(rowids.length);
    const missing = rowids.filter((rowid) => !known.has(rowid));
    if (missing.length > 0) for (const row of read(missing)) known.set(row.seq, row.id);
    return known;
  }

  private queue(kind: FtsKind, seq: number): void {
    this.sql.run("INSERT OR IGNORE INTO fts_pending (kind, seq) VALUES (?, ?)", kind, seq);
  }

  /** Rows waiting to be indexed, of every kind. */
  queued(): number {
    return this.sql.column<number>("SELECT count(*) FROM fts_pending")[0] ?? 0;
  }

  /** Indexes every queued row (a writer calls this before it lets go of the workspace). */
  flushAll(): void {
    for (const kind of ["chunk", "entity", "relationship"] as const) this.flush(kind, true);
  }

  /**
   * Indexes the queued rows of one kind. Checked before taking the write lock: usually empty. A
   * connection that only reads never flushes (readers never wait for the writer's lock): it
   * searches what the writer flushed when it finished.
   */
  private flush(kind: FtsKind, asWriter = this.sql.hasWritten()): void {
    if (!asWriter) return;
    if (!this.sql.get("SELECT 1 FROM fts_pending WHERE kind = ? LIMIT 1", kind)) return;
    const flushers: Record<FtsKind, () => void> = {
      chunk: () => this.flushChunks(),
      entity: () => this.flushEntities(),
      relationship: () => this.flushRelationships(),
    };
    this.sql.transaction(() => {
      flushers[kind]();
      this.versions[kind].bump();
    });
  }

  /**
   * Indexes at most `rows` queued chunks in one transaction and tells whether more are queued. A
   * writer that indexes chunk text beside requests in flight does it a slice at a time, so a reply
   * that arrives meanwhile waits for one slice, not for the whole queue.
   */
  flushChunkSlice(rows: number): boolean {
    if (!this.sql.get("SELECT 1 FROM fts_pending WHERE kind = 'chunk' LIMIT 1")) return false;
    this.sql.transaction(() => {
      const seqs = this.indexChunks(
        this.sql.all<{ seq: number; text: string }>(
          `SELECT c.seq, c.text FROM fts_pending p JOIN chunks c ON c.seq = p.seq
           WHERE p.kind = 'chunk' ORDER BY p.seq LIMIT ?`,
          rows,
        ),
      );
      // Pending rows of deleted chunks have no text to index: they go with the slice they precede.
      this.sql.run(
        "DELETE FROM fts_pending WHERE kind = 'chunk' AND seq <= ?",
        seqs.at(-1) ?? Number.MAX_SAFE_INTEGER,
      );
      this.versions.chunk.bump();
    });
    return Boolean(this.sql.get("SELECT 1 FROM fts_pending WHERE kind = 'chunk' LIMIT 1"));
  }

  private flushChunks(): void {
    this.indexChunks(
      this.sql.all<{ seq: number; text: string }>(
        "SELECT c.seq, c.text FROM fts_pending p JOIN chunks c ON c.seq = p.seq WHERE p.kind = 'chunk'",
      ),
    );
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'chunk'");
  }

  /** Indexes the chunks' text and sentence units; returns their seqs in order. */
  private indexChunks(rows: { seq: number; text: string }[]): number[] {
    const insert = this.sql.statement("INSERT OR REPLACE INTO chunks_fts (rowid, text) VALUES (?, ?)");
    const insertUnit = this.sql.statement("INSERT INTO chunk_units_fts (rowid, text) VALUES (?, ?)");
    this.removeUnits(rows.map((row) => row.seq));
    for (const row of rows) {
      insert.run(row.seq, segmentForIndex(row.text));
      chunkUnits(row.text, UNIT_STRIDE).forEach((unit, i) => {
        insertUnit.run(row.seq * UNIT_STRIDE + i, segmentForIndex(unit));
      });
    }
    return rows.map((row) => row.seq);
  }

  /**
   * Deletes the sentence units of the chunks. FTS5 answers a rowid range on a contentless table by
   * scanning every row, and any DELETE statement on it writes its pending terms out as a new
   * segment, so the unit rowids are first read from the table's docsize shadow table (one row per
   * indexed rowid, under a b-tree key) and the DELETE runs only when there are some: new chunks,
   * the common case, have none.
   */
  private removeUnits(seqs: number[]): void {
    const rowids = this.sql.column<number>(
      `SELECT d.id FROM json_each(?) s JOIN chunk_units_fts_docsize d
         ON d.id >= s.value * ${UNIT_STRIDE} AND d.id < (s.value + 1) * ${UNIT_STRIDE}`,
      JSON.stringify(seqs),
    );
    if (rowids.length === 0) return;
    this.sql.run(
      "DELETE FROM chunk_units_fts WHERE rowid IN (SELECT value FROM json_each(?))",
      JSON.stringify(rowids),
    );
  }

  private flushEntities(): void {
    // The name column holds the aliases too, so an entity is found by any name it was merged from.
    const rows = this.sql.all<{ seq: number; name: string; description: string }>(
      `SELECT e.seq, e.name || coalesce(' ' || (SELECT group_concat(value, ' ') FROM json_each(a.aliases)), '')
         AS name, e.description
       FROM fts_pending p JOIN entities e ON e.seq = p.seq LEFT JOIN entity_aliases a ON a.key = e.key
       WHERE p.kind = 'entity'`,
    );
    const insert = this.sql.statement(
      "INSERT OR REPLACE INTO entities_fts (rowid, name, description) VALUES (?, ?, ?)",
    );
    for (const row of rows) insert.run(row.seq, segmentForIndex(row.name), segmentForIndex(row.description));
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'entity'");
  }

  private flushRelationships(): void {
    const rows = this.sql.all<RelationshipTextRow>(
      `SELECT r.seq, r.source_key, r.target_key, r.keywords, r.description
       FROM fts_pending p JOIN relationships r ON r.seq = p.seq WHERE p.kind = 'relationship'`,
    );
    const insert = this.sql.statement("INSERT OR REPLACE INTO relationships_fts (rowid, text) VALUES (?, ?)");
    for (const row of rows) insert.run(row.seq, segmentForIndex(searchTextOf(row)));
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'relationship'");
  }
}

/** SQLite's default (BINARY) order of text: by the bytes of its UTF-8, as the scoped SQL ranked ties. */
function sqliteTextOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

interface RelationshipTextRow {
  seq: number;
  source_key: string;
  target_key: string;
  keywords: string;
  description: string;
}

function searchTextOf(row: RelationshipTextRow): string {
  return relationshipSearchText({
    sourceKey: row.source_key,
    targetKey: row.target_key,
    keywords: JSON.parse(row.keywords) as string[],
    description: row.description,
  });
}
