import type { ScoredId } from "../../types.js";
import { idList, type Sql } from "./connection.js";
import { matchExpression, segmentForIndex } from "./fts-text.js";

/** An entity's name counts this many times more than its description in bm25. */
const ENTITY_NAME_WEIGHT = 5;

type FtsKind = "chunk" | "entity";

/**
 * FTS5 indexes over chunk text and entity name/description, keyed by the owner's `seq` rowid.
 *
 * Writes only queue the row in fts_pending; the queue is indexed in one batch before the next
 * search. An entity is re-described at every merge that mentions it, so indexing it each time
 * would cost O(mentions x description length) and one small FTS segment per commit; batching
 * indexes each row once, in its final form. Scores are negated bm25: higher is better.
 */
export class FullTextIndex {
  constructor(private readonly sql: Sql) {}

  queueChunk(seq: number): void {
    this.queue("chunk", seq);
  }

  queueEntity(seq: number): void {
    this.queue("entity", seq);
  }

  removeChunks(seqs: number[]): void {
    if (seqs.length === 0) return;
    const list = JSON.stringify(seqs);
    this.sql.run("DELETE FROM chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))", list);
    this.sql.run(
      "DELETE FROM fts_pending WHERE kind = 'chunk' AND seq IN (SELECT value FROM json_each(?))",
      list,
    );
  }

  removeEntity(seq: number): void {
    this.sql.run("DELETE FROM entities_fts WHERE rowid = ?", seq);
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'entity' AND seq = ?", seq);
  }

  /** `allow` restricts candidates inside the query, so top-k is taken among allowed chunks only. */
  searchChunks(query: string, topK: number, allow?: Set<string>): ScoredId[] {
    const match = matchExpression(query);
    if (match === null || topK <= 0 || allow?.size === 0) return [];
    this.flush("chunk");
    const select = `SELECT c.id AS id, -bm25(chunks_fts) AS score
      FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
      WHERE chunks_fts MATCH ?`;
    if (!allow) return this.sql.all<ScoredId>(`${select} ORDER BY score DESC, c.id LIMIT ?`, match, topK);
    return this.sql.all<ScoredId>(
      `${select} AND c.id IN (SELECT value FROM json_each(?)) ORDER BY score DESC, c.id LIMIT ?`,
      match,
      idList(allow),
      topK,
    );
  }

  searchEntities(query: string, topK: number): ScoredId[] {
    const match = matchExpression(query);
    if (match === null || topK <= 0) return [];
    this.flush("entity");
    return this.sql.all<ScoredId>(
      `SELECT e.key AS id, -bm25(entities_fts, ${ENTITY_NAME_WEIGHT}, 1) AS score
       FROM entities_fts JOIN entities e ON e.seq = entities_fts.rowid
       WHERE entities_fts MATCH ? ORDER BY score DESC, e.key LIMIT ?`,
      match,
      topK,
    );
  }

  private queue(kind: FtsKind, seq: number): void {
    this.sql.run("INSERT OR IGNORE INTO fts_pending (kind, seq) VALUES (?, ?)", kind, seq);
  }

  /** Indexes the queued rows of one kind. Checked before taking the write lock: usually empty. */
  private flush(kind: FtsKind): void {
    if (!this.sql.get("SELECT 1 FROM fts_pending WHERE kind = ? LIMIT 1", kind)) return;
    this.sql.transaction(() => (kind === "chunk" ? this.flushChunks() : this.flushEntities()));
  }

  private flushChunks(): void {
    const rows = this.sql.all<{ seq: number; text: string }>(
      "SELECT c.seq, c.text FROM fts_pending p JOIN chunks c ON c.seq = p.seq WHERE p.kind = 'chunk'",
    );
    const insert = this.sql.statement("INSERT OR REPLACE INTO chunks_fts (rowid, text) VALUES (?, ?)");
    for (const row of rows) insert.run(row.seq, segmentForIndex(row.text));
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'chunk'");
  }

  private flushEntities(): void {
    const rows = this.sql.all<{ seq: number; name: string; description: string }>(
      `SELECT e.seq, e.name, e.description FROM fts_pending p JOIN entities e ON e.seq = p.seq
       WHERE p.kind = 'entity'`,
    );
    const insert = this.sql.statement(
      "INSERT OR REPLACE INTO entities_fts (rowid, name, description) VALUES (?, ?, ?)",
    );
    for (const row of rows) insert.run(row.seq, segmentForIndex(row.name), segmentForIndex(row.description));
    this.sql.run("DELETE FROM fts_pending WHERE kind = 'entity'");
  }
}
