// Chunk records of the documents asked for, in document and index order. Lets concurrent
// per-document reads (a query's home passages) share one round trip (see key-batcher.ts).
// @param workspace  the workspace this store serves
// @param docIds  document ids
UNWIND $docIds AS docId
MATCH (c:Chunk {workspace: $workspace, docId: docId})
USING INDEX c:Chunk(workspace, docId)
WHERE c.anchor IS NULL
RETURN {id: c.id, docId: c.docId, index: c.index, text: c.text, tokens: c.tokens, start: c.start, end: c.end} AS chunk
ORDER BY c.docId, c.index
