// Merge state of the chunks of several documents, in document then chunk order within each
// document (documents in no particular order). Lets concurrent one-document reads share one round trip.
// @param workspace  the workspace this store serves
// @param docIds  document ids
UNWIND $docIds AS docId
MATCH (c:Chunk {workspace: $workspace, docId: docId})
USING INDEX c:Chunk(workspace, docId)
WHERE c.anchor IS NULL
RETURN {chunkId: c.id, docId: c.docId, status: c.status, error: c.error, rawOutput: c.rawOutput} AS state
ORDER BY c.docId, c.index
