// Chunk records in the order of the ids asked for; unknown ids are skipped.
// @param workspace  the workspace this store serves
// @param ids  chunk ids
UNWIND range(0, size($ids) - 1) AS position
MATCH (c:Chunk {workspace: $workspace, id: $ids[position]})
USING INDEX c:Chunk(workspace, id)
WHERE c.anchor IS NULL
RETURN {id: c.id, docId: c.docId, index: c.index, text: c.text, tokens: c.tokens, start: c.start, end: c.end} AS chunk
ORDER BY position
