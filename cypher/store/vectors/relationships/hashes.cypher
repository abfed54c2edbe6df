// The text hash of every stored relationship vector.
// @param workspace  the workspace this store serves
MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
WHERE r.embeddingHash IS NOT NULL
RETURN r.key AS id, r.embeddingHash AS textHash
