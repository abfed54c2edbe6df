import type { DocumentRecord, DocumentStatus, Scope } from "../../types.js";
import { idList, type Sql } from "./connection.js";
import { type DocumentRow, toDocument } from "./rows.js";
import { TableVersion } from "./table-version.js";

/**
 * A metadata value as the text a scope filter is compared with: JSON booleans read back from
 * json_each as 1/0, so they are spelled out again.
 */
const METADATA_VALUE_AS_TEXT =
  "CASE m.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(m.value AS TEXT) END";

export class DocumentTable {
  /**
   * Moved by every write that may add, retitle or remove a document, not by status or chunk-count
   * updates: queries key the index of document subjects on it (see titles()).
   */
  readonly titlesVersion: TableVersion;

  constructor(private readonly sql: Sql) {
    this.titlesVersion = new TableVersion(sql, "documentTitles");
  }

  upsert(doc: DocumentRecord): void {
    this.sql.run(
      `INSERT INTO documents
         (id, title, path, content_hash, status, error, metadata, chunk_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET
         title = excluded.title, path = excluded.path, content_hash = excluded.content_hash,
         status = excluded.status, error = excluded.error, metadata = excluded.metadata,
         chunk_count = excluded.chunk_count, created_at = excluded.created_at,
         updated_at = excluded.updated_at`,
      doc.id,
      doc.title,
      doc.path,
      doc.contentHash,
      doc.status,
      doc.error,
      JSON.stringify(doc.metadata),
      doc.chunkCount,
      doc.createdAt,
      doc.updatedAt,
    );
    this.titlesVersion.bump();
  }

  get(id: string): DocumentRecord | undefined {
    const row = this.sql.get<DocumentRow>("SELECT * FROM documents WHERE id = ?", id);
    return row && toDocument(row);
  }

  list(): DocumentRecord[] {
    return this.sql.all<DocumentRow>("SELECT * FROM documents ORDER BY created_at, id").map(toDocument);
  }

  /** Every document's id and title, in list() order, without the rest of the record. */
  titles(): { id: string; title: string }[] {
    return this.sql.all<{ id: string; title: string }>(
      "SELECT id, title FROM documents ORDER BY created_at, id",
    );
  }

  exists(id: string): boolean {
    return this.sql.get("SELECT 1 FROM documents WHERE id = ?", id) !== undefined;
  }

  setStatus(id: string, status: DocumentStatus, error: string | null): void {
    const result = this.sql.run(
      "UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ?",
      status,
      error,
      new Date().toISOString(),
      id,
    );
    if (result.changes === 0) throw new Error(`Cannot set the status of unknown document "${id}".`);
  }

  setChunkCount(id: string, chunkCount: number): void {
    this.sql.run("UPDATE documents SET chunk_count = ? WHERE id = ?", chunkCount, id);
  }

  deleteMany(ids: string[]): void {
    this.sql.run("DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))", idList(ids));
    this.titlesVersion.bump();
  }

  /**
   * Chunk ids of the documents that pass every filter: listed ids (an empty list matches none) and
   * metadata values compared as text, so { year: "2020" } matches a stored number 2020.
   */
  chunkIdsInScope(scope: Scope): Set<string> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (scope.docIds !== undefined) {
      conditions.push("d.id IN (SELECT value FROM json_each(?))");
      params.push(idList(scope.docIds));
    }
    for (const [key, value] of Object.entries(scope.metadata ?? {})) {
      conditions.push(
        `EXISTS (SELECT 1 FROM json_each(d.metadata) m WHERE m.key = ? AND ${METADATA_VALUE_AS_TEXT} = ?)`,
      );
      params.push(key, String(value));
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
    const ids = this.sql.column<string>(
      `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id ${where}`,
      ...params,
    );
    return new Set(ids);
  }
}
