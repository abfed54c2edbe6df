import type {
  ChunkRecord,
  ChunkState,
  DocumentRecord,
  DocumentStatus,
  Metadata,
  Scope,
} from "../../types.js";
import { assertChunksBelongTo } from "../input-checks.js";
import { int, type Neo4jConnection } from "./connection.js";
import { asChunkStates, asChunks, asDocuments, asStrings } from "./read-rows.js";
import { chunkRow, documentRow } from "./write-rows.js";

/** Documents and their chunks: (:Document)-[:HAS_CHUNK]->(:Chunk)-[:NEXT_CHUNK]->(:Chunk). */

export async function upsertDocument(db: Neo4jConnection, doc: DocumentRecord): Promise<void> {
  await db.write((tx) => tx.run("store/document-upsert", { doc: documentRow(doc) }));
}

/** Document records by id (unknown ids left out), for a KeyBatcher of concurrent reads. */
export async function getDocumentsById(
  db: Neo4jConnection,
  ids: string[],
): Promise<Map<string, DocumentRecord>> {
  const docs = asDocuments(await db.read("store/documents-get", { ids }));
  return new Map(docs.map((doc) => [doc.id, doc]));
}

export async function listDocuments(db: Neo4jConnection): Promise<DocumentRecord[]> {
  return asDocuments(await db.read("store/documents-list"));
}

export async function setDocumentStatus(
  db: Neo4jConnection,
  id: string,
  status: DocumentStatus,
  error: string | null,
): Promise<void> {
  const updatedAt = new Date().toISOString();
  const rows = await db.write((tx) => tx.run("store/document-set-status", { id, status, error, updatedAt }));
  if (rows.length === 0) throw new Error(`Cannot set the status of unknown document "${id}".`);
}

/** Atomic: unchanged chunk ids keep their state and mentions, the others are replaced. */
export async function replaceDocumentChunks(
  db: Neo4jConnection,
  docId: string,
  chunks: ChunkRecord[],
): Promise<void> {
  assertChunksBelongTo(docId, chunks);
  await db.write(async (tx) => {
    const found = await tx.run("store/document-set-chunk-count", {
      id: docId,
      chunkCount: int(chunks.length),
    });
    if (found.length === 0) {
      throw new Error(`Cannot store chunks of unknown document "${docId}": upsert the document first.`);
    }
    await tx.run("store/chunks-delete-others", { docId, keepIds: chunks.map((c) => c.id) });
    await tx.runBatched("store/chunks-upsert", chunks.map(chunkRow), { docId });
    await tx.run("store/chunks-link-sequence", { docId });
  });
}

export async function getChunks(db: Neo4jConnection, ids: string[]): Promise<ChunkRecord[]> {
  if (ids.length === 0) return [];
  return asChunks(await db.read("store/chunks-get", { ids }));
}

export async function listChunks(db: Neo4jConnection, docId?: string): Promise<ChunkRecord[]> {
  return asChunks(await db.read("store/chunks-list", { docId: docId ?? null }));
}

/** Chunk records of each document (documents without chunks left out), for a KeyBatcher of concurrent reads. */
export async function chunksOfDocuments(
  db: Neo4jConnection,
  docIds: string[],
): Promise<Map<string, ChunkRecord[]>> {
  const byDocument = new Map<string, ChunkRecord[]>();
  for (const chunk of asChunks(await db.read("store/chunks-of-documents", { docIds }))) {
    const list = byDocument.get(chunk.docId);
    if (list) list.push(chunk);
    else byDocument.set(chunk.docId, [chunk]);
  }
  return byDocument;
}

export async function getChunkStates(db: Neo4jConnection, docId?: string): Promise<ChunkState[]> {
  return asChunkStates(await db.read("store/chunk-states", { docId: docId ?? null }));
}

export async function markChunkFailed(
  db: Neo4jConnection,
  id: string,
  error: string,
  rawOutput: string | null,
): Promise<void> {
  const rows = await db.write((tx) => tx.run("store/chunk-mark-failed", { id, error, rawOutput }));
  if (rows.length === 0) throw new Error(`Cannot mark unknown chunk "${id}" as failed.`);
}

/**
 * Document ids and metadata filters resolved to chunk ids. Metadata lives as JSON text on the
 * document, so it is matched here, with values compared as text ({year: "2020"} matches 2020).
 */
export async function chunkIdsInScope(db: Neo4jConnection, scope: Scope): Promise<Set<string>> {
  let docIds = scope.docIds ?? null;
  const wanted = Object.entries(scope.metadata ?? {});
  if (wanted.length > 0) {
    const matching = (await listDocuments(db))
      .filter((d) => metadataMatches(d.metadata, wanted))
      .map((d) => d.id);
    docIds = docIds === null ? matching : matching.filter((id) => docIds?.includes(id));
  }
  if (docIds !== null && docIds.length === 0) return new Set();
  const rows = await db.read("store/chunk-ids-in-scope", { docIds });
  return new Set(rows.map((r) => String(r.id)));
}

function metadataMatches(metadata: Metadata, wanted: [string, string][]): boolean {
  return wanted.every(([key, value]) => key in metadata && String(metadata[key]) === String(value));
}

/** Atomic: documents, chunks (with their vectors and full-text entries) and mentions go together. */
export async function deleteDocuments(
  db: Neo4jConnection,
  docIds: string[],
): Promise<{ entityKeys: string[]; relationshipKeys: string[] }> {
  if (docIds.length === 0) return { entityKeys: [], relationshipKeys: [] };
  return db.write(async (tx) => {
    const [keys] = await tx.run("store/mention-keys-of-documents", { docIds });
    const entityKeys = asStrings(keys?.entityKeys ?? [], "entity keys").sort();
    const relationshipKeys = asStrings(keys?.relationshipKeys ?? [], "relationship keys").sort();
    await tx.run("store/documents-delete", { docIds });
    await tx.run("store/entity-anchors-prune", { keys: entityKeys });
    return { entityKeys, relationshipKeys };
  });
}
