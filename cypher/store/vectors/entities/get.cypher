// Stored entity vectors by id (for migration).
// @param workspace  the workspace this store serves
// @param ids  Entity keys
MATCH (n:Entity {workspace: $workspace})
WHERE n.key IN $ids AND n.embedding IS NOT NULL
RETURN n.key AS id, n.embedding AS vector, n.embeddingHash AS textHash
ORDER BY id
