// Ids of the chunks of the given documents (all chunks when docIds is null).
// @param workspace  the workspace this store serves
// @param docIds?  document ids, or null for every document
MATCH (c:Chunk {workspace: $workspace})
WHERE c.anchor IS NULL AND ($docIds IS NULL OR c.docId IN $docIds)
RETURN c.id AS id
