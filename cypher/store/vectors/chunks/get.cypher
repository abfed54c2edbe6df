// Stored chunk vectors by id (for migration).
// @param workspace  the workspace this store serves
// @param ids  Chunk ids
MATCH (n:Chunk {workspace: $workspace})
USING INDEX n:Chunk(workspace, id)
WHERE n.id IN $ids AND n.embedding IS NOT NULL
RETURN n.id AS id, n.embedding AS vector, n.embeddingHash AS textHash
ORDER BY id
