// The text hash of every stored chunk vector.
// @param workspace  the workspace this store serves
MATCH (n:Chunk {workspace: $workspace})
WHERE n.embeddingHash IS NOT NULL
RETURN n.id AS id, n.embeddingHash AS textHash
