import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { decodeVector } from "../../src/storage/vectors/vector-blob.js";

/**
 * Hashes of what an index run built, read straight from a workspace's SQLite file, one per part:
 * two runs over the same input built the same graph when every hash agrees. Timestamps, history
 * and rowids are left out (they record how the graph was reached, not what it is); vectors are
 * hashed bit for bit as their dense Float32 values, whichever form stores them (vector-blob.ts), so
 * a fingerprint taken before the sparse form compares equal.
 */
export type WorkspaceFingerprint = Record<string, string>;

const PARTS: Record<string, string> = {
  // content_hash covers the metadata, which names the input file's path: left out, so the same
  // corpus read from another folder compares equal.
  documents: "SELECT id, title, status, error, chunk_count FROM documents ORDER BY id",
  chunks: "SELECT id, doc_id, idx, text, tokens, start_offset, end_offset, status FROM chunks ORDER BY id",
  entityMentions: `SELECT entity_key, chunk_id, name, type, description FROM entity_mentions
    ORDER BY entity_key, chunk_id, name, type, description`,
  relationshipMentions: `SELECT relationship_key, chunk_id, source_key, target_key, description, keywords, strength
    FROM relationship_mentions ORDER BY relationship_key, chunk_id, description`,
  entities: `SELECT e.key, name, type, description, fragments, source_chunk_ids, fragments_hash, needs_summary,
    a.aliases FROM entities e LEFT JOIN entity_aliases a ON a.key = e.key ORDER BY e.key`,
  relationships: `SELECT key, source_key, target_key, description, fragments, keywords, weight, source_chunk_ids,
    fragments_hash, needs_summary FROM relationships ORDER BY key`,
  communities: `SELECT id, level, parent_id, child_ids, entity_keys, content_hash, report, report_hash
    FROM communities ORDER BY id`,
  vectors: "SELECT namespace, id, dim, text_hash, vector FROM vectors ORDER BY namespace, id",
};

/** A vectors row (namespace, id, dim, text_hash, vector) with its vector as dense Float32 bytes. */
function withDenseVector([namespace, id, dim, textHash, blob]: unknown[]): unknown[] {
  const vector = decodeVector(blob as Buffer, dim as number, String(id));
  return [namespace, id, dim, textHash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)];
}

export function workspaceFingerprint(sqliteFile: string): WorkspaceFingerprint {
  const db = new Database(sqliteFile, { readonly: true });
  try {
    const fingerprint: WorkspaceFingerprint = {};
    for (const [part, sql] of Object.entries(PARTS)) {
      const hash = createHash("sha256");
      let rows = 0;
      // Streamed: the vectors alone can be hundreds of megabytes.
      for (const stored of db.prepare(sql).raw(true).iterate() as IterableIterator<unknown[]>) {
        const row = part === "vectors" ? withDenseVector(stored) : stored;
        for (const value of row) {
          hash.update(Buffer.isBuffer(value) ? value : String(value));
          hash.update("\u0000");
        }
        hash.update("\n");
        rows++;
      }
      fingerprint[part] = `${rows}:${hash.digest("hex").slice(0, 16)}`;
    }
    return fingerprint;
  } finally {
    db.close();
  }
}
