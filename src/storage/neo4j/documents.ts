import type { ChunkRecord, ChunkState, DocumentRecord, Metadata, Scope } from "../../types.js";
import { groupBy } from "../../util/group-by.js";
import type { DocumentRegistration, DocumentStatusUpdate } from "../graph-store.js";
import { assertChunksBelongTo } from "../input-checks.js";
import { int, type Neo4jConnection, type WriteTransaction } from "./connection.js";
import { asChunkStates, asChunks, asDocuments, asStrings } from "./read-rows.js";
import { chunkRow, documentRow } from "./write-rows.js";

/** Documents and their chunks: (:Document)-[:HAS_CHUNK]->(:Chunk)-[:NEXT_CHUNK]->(:Chunk). */

export async function upsertDocuments(db: Neo4jConnection, docs: DocumentRecord[]): Promise<void> {
  if (docs.length === 0) return;
  await db.write((tx) => tx.runBatched("store/documents-upsert", docs.map(documentRow)));
}

/**
 * Atomic: each document upserted and its chunks replaced (unchanged chunk ids keep their state
 * and mentions), all documents in one transaction with a few UNWIND statements: a transaction per
 * document made registration a round trip and a commit per document.
 */
export async function registerDocuments(
  db: Neo4jConnection,
  registrations: DocumentRegistration[],
): Promise<void> {
  if (registrations.length === 0) return;
  for (const { document, chunks } of registrations) assertChunksBelongTo(document.id, chunks);
  const documentRows = registrations.map(({ document, chunks }) =>
    documentRow({ ...document, chunkCount: chunks.length }),
  );
  await db.write(async (tx) => {
    await tx.runBatched("store/documents-upsert", documentRows);
    await writeChunks(
      tx,
      registrations.map(({ document, chunks }) => ({ docId: document.id, chunks })),
    );
  });
}

/** The documents' chunks replaced, in the caller's transaction; the documents must exist. */
async function writeChunks(
  tx: WriteTransaction,
  documents: { docId: string; chunks: ChunkRecord[] }[],
): Promise<void> {
  const keep = documents.map(({ docId, chunks }) => ({ docId, keepIds: chunks.map((c) => c.id) }));
  const chunkRows = documents.flatMap(({ docId, chunks }) =>
    chunks.map((chunk) => ({ docId, ...chunkRow(chunk) })),
  );
  await tx.runBatched("store/chunks-delete-others", keep);
  await tx.runBatched("store/chunks-upsert", chunkRows);
  await tx.runBatched(
    "store/chunks-link-sequence",
    documents.map((d) => d.docId),
  );
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

/** Atomic: every status set, or none when a document is unknown. */
export async function setDocumentStatuses(
  db: Neo4jConnection,
  updates: DocumentStatusUpdate[],
): Promise<void> {
  if (updates.length === 0) return;
  const updatedAt = new Date().toISOString();
  const rows = updates.map(({ id, status, error }) => ({ id, status, error }));
  await db.write(async (tx) => {
    const found = new Set(
      (await tx.runBatched("store/documents-set-status", rows, { updatedAt })).map((r) => String(r.id)),
    );
    const unknown = updates.find((u) => !found.has(u.id));
    if (unknown) throw new Error(`Cannot set the status of unknown document "${unknown.id}".`);
  });
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
    await writeChunks(tx, [{ docId, chunks }]);
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

/** Chunk states of each document (documents without chunks left out), for a KeyBatcher of concurrent reads. */
export async function chunkStatesOfDocuments(
  db: Neo4jConnection,
  docIds: string[],
): Promise<Map<string, ChunkState[]>> {
  return groupBy(asChunkStates(await db.read("store/chunk-states-of-documents", { docIds })), (s) => s.docId);
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
