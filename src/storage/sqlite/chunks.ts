import type { ChunkPartial, ChunkRecord, ChunkState } from "../../types.js";
import { assertChunksBelongTo } from "../input-checks.js";
import { idList, qualified, type Sql } from "./connection.js";
import type { FullTextIndex } from "./fts.js";
import { GenerationMap } from "./generation-map.js";
import { type ChunkRow, type ChunkStateRow, toChunk, toChunkState } from "./rows.js";
import type { VectorIndex } from "./vector-index.js";

interface ChunkRef {
  id: string;
  seq: number;
}

const CHUNK_COLUMNS = "id, doc_id, idx, text, tokens, start_offset, end_offset";
const CHUNK_COLUMNS_OF_C = qualified("c", CHUNK_COLUMNS);
const STATE_COLUMNS = "id, doc_id, status, error, raw_output";

/** Chunks with their merge state, kept in step with their full-text rows and chunk vectors. */
export class ChunkTable {
  /** Records read by id while the data is unchanged (null: no such chunk); queries read the same passages again and again. */
  private readonly byId: GenerationMap<string, ChunkRecord | null>;

  constructor(
    private readonly sql: Sql,
    private readonly fullText: FullTextIndex,
    private readonly vectors: VectorIndex,
    /** Beyond it the remembered records are dropped all at once (config sqliteReadCache.maxChunks). */
    maxCachedChunks = 0,
  ) {
    this.byId = new GenerationMap(sql, maxCachedChunks);
  }

  /** Call inside a transaction. Unchanged ids keep state and mentions; the others are removed. */
  replaceForDocument(docId: string, chunks: ChunkRecord[]): void {
    assertChunksBelongTo(docId, chunks);
    const existing = new Map(this.refsOfDocuments([docId]).map((ref) => [ref.id, ref.seq]));
    const incoming = new Set(chunks.map((chunk) => chunk.id));
    this.remove([...existing].filter(([id]) => !incoming.has(id)).map(([id, seq]) => ({ id, seq })));
    for (const chunk of chunks) {
      if (existing.has(chunk.id)) this.updatePosition(chunk);
      else this.insert(chunk);
    }
  }

  refsOfDocuments(docIds: string[]): ChunkRef[] {
    return this.sql.all<ChunkRef>(
      "SELECT id, seq FROM chunks WHERE doc_id IN (SELECT value FROM json_each(?))",
      idList(docIds),
    );
  }

  /** Deletes chunks with their full-text rows and vectors; mentions go by ON DELETE CASCADE. */
  remove(refs: ChunkRef[]): void {
    if (refs.length === 0) return;
    const ids = refs.map((ref) => ref.id);
    this.fullText.removeChunks(refs.map((ref) => ref.seq));
    this.vectors.delete("chunks", ids);
    this.sql.run("DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))", idList(ids));
  }

  /** The records of `ids` in their order (a repeated id repeats), unknown ids skipped; copies. */
  get(ids: string[]): ChunkRecord[] {
    const unique = [...new Set(ids)];
    const records = this.byId.current(unique.length);
    const missing = unique.filter((id) => !records.has(id));
    if (missing.length > 0) {
      const found = new Map(this.read(missing).map((chunk) => [chunk.id, chunk]));
      const room = records.size + missing.length <= this.byId.maxEntries;
      if (!room) return ids.flatMap((id) => copyOf(records.get(id) ?? found.get(id)));
      for (const id of missing) records.set(id, found.get(id) ?? null);
    }
    return ids.flatMap((id) => copyOf(records.get(id)));
  }

  private read(ids: string[]): ChunkRecord[] {
    return this.sql
      .all<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS_OF_C} FROM json_each(?) wanted JOIN chunks c ON c.id = wanted.value
         ORDER BY wanted.key`,
        idList(ids),
      )
      .map(toChunk);
  }

  list(docId?: string): ChunkRecord[] {
    const rows =
      docId === undefined
        ? this.sql.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks ORDER BY doc_id, idx`)
        : this.sql.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY idx`, docId);
    return rows.map(toChunk);
  }

  states(docId?: string): ChunkState[] {
    const rows =
      docId === undefined
        ? this.sql.all<ChunkStateRow>(`SELECT ${STATE_COLUMNS} FROM chunks ORDER BY doc_id, idx`)
        : this.sql.all<ChunkStateRow>(
            `SELECT ${STATE_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY idx`,
            docId,
          );
    return rows.map(toChunkState);
  }

  markFailed(chunkId: string, error: string, rawOutput: string | null): void {
    const result = this.sql.run(
      "UPDATE chunks SET status = 'failed', error = ?, raw_output = ? WHERE id = ?",
      error,
      rawOutput,
      chunkId,
    );
    if (result.changes === 0) throw new Error(`Cannot mark unknown chunk "${chunkId}" as failed.`);
  }

  /** 'merged', or 'partial' with the reason when the extraction was cut short. */
  markMerged(chunkId: string, partial?: ChunkPartial): void {
    const result = this.sql.run(
      "UPDATE chunks SET status = ?, error = ?, raw_output = ? WHERE id = ?",
      partial ? "partial" : "merged",
      partial?.error ?? null,
      partial?.rawOutput ?? null,
      chunkId,
    );
    if (result.changes === 0)
      throw new Error(`Cannot merge unknown chunk "${chunkId}": store its document's chunks first.`);
  }

  private insert(chunk: ChunkRecord): void {
    const { lastInsertRowid } = this.sql.run(
      `INSERT INTO chunks (${CHUNK_COLUMNS}, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')`,
      chunk.id,
      chunk.docId,
      chunk.index,
      chunk.text,
      chunk.tokens,
      chunk.start,
      chunk.end,
    );
    this.fullText.queueChunk(Number(lastInsertRowid));
  }

  /** Same id means same content; only its place in the (re-chunked) document can move. */
  private updatePosition(chunk: ChunkRecord): void {
    this.sql.run(
      "UPDATE chunks SET idx = ?, tokens = ?, start_offset = ?, end_offset = ? WHERE id = ?",
      chunk.index,
      chunk.tokens,
      chunk.start,
      chunk.end,
      chunk.id,
    );
  }
}

/** Callers may change what they get; the cache keeps its own (a chunk's fields are all plain values). */
function copyOf(chunk: ChunkRecord | null | undefined): ChunkRecord[] {
  return chunk ? [{ ...chunk }] : [];
}
