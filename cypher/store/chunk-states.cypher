// Merge state of the chunks of one document (or all when docId is null).
// @param workspace  the workspace this store serves
// @param docId?  document id, or null for every document
MATCH (c:Chunk {workspace: $workspace})
WHERE c.anchor IS NULL AND ($docId IS NULL OR c.docId = $docId)
RETURN {chunkId: c.id, docId: c.docId, status: c.status, error: c.error, rawOutput: c.rawOutput} AS state
ORDER BY c.docId, c.index
