// The text hash of every stored community vector.
// @param workspace  the workspace this store serves
MATCH (n:Community {workspace: $workspace})
WHERE n.embeddingHash IS NOT NULL
RETURN n.id AS id, n.embeddingHash AS textHash
