// Chunk records of one document (or all when docId is null), in document and index order.
// @param workspace  the workspace this store serves
// @param docId?  document id, or null for every document
MATCH (c:Chunk {workspace: $workspace})
WHERE c.anchor IS NULL AND ($docId IS NULL OR c.docId = $docId)
RETURN {id: c.id, docId: c.docId, index: c.index, text: c.text, tokens: c.tokens, start: c.start, end: c.end} AS chunk
ORDER BY c.docId, c.index
