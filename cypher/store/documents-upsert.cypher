// Inserts or replaces document records; metadata is kept as JSON text (Neo4j has no map properties).
// @param workspace  the workspace this store serves
// @param rows  list of {id, title, path, contentHash, status, error, metadataJson, chunkCount, createdAt, updatedAt}
UNWIND $rows AS doc
MERGE (d:Document {workspace: $workspace, id: doc.id})
SET d.title = doc.title,
    d.path = doc.path,
    d.contentHash = doc.contentHash,
    d.status = doc.status,
    d.error = doc.error,
    d.metadataJson = doc.metadataJson,
    d.chunkCount = doc.chunkCount,
    d.createdAt = doc.createdAt,
    d.updatedAt = doc.updatedAt
