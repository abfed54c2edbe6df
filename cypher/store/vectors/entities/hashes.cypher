// The text hash of every stored entity vector.
// @param workspace  the workspace this store serves
MATCH (n:Entity {workspace: $workspace})
WHERE n.embeddingHash IS NOT NULL
RETURN n.key AS id, n.embeddingHash AS textHash
