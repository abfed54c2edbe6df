// Stored relationship vectors by key (for migration).
// @param workspace  the workspace this store serves
// @param ids  relationship keys
UNWIND $ids AS id
MATCH (:Entity)-[r:RELATED {key: id}]->(:Entity)
WHERE r.workspace = $workspace AND r.embedding IS NOT NULL
RETURN r.key AS id, r.embedding AS vector, r.embeddingHash AS textHash
ORDER BY id
