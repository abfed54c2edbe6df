// Stored community vectors by id (for migration).
// @param workspace  the workspace this store serves
// @param ids  Community ids
MATCH (n:Community {workspace: $workspace})
WHERE n.id IN $ids AND n.embedding IS NOT NULL
RETURN n.id AS id, n.embedding AS vector, n.embeddingHash AS textHash
ORDER BY id
