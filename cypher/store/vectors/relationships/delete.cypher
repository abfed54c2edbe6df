// Removes relationship vectors; an anchor edge is deleted, and its endpoint keys are returned so
// that orphaned anchor endpoints can be pruned.
// @param workspace  the workspace this store serves
// @param ids  relationship keys
UNWIND $ids AS id
MATCH (a:Entity)-[r:RELATED {key: id}]->(b:Entity)
WHERE r.workspace = $workspace
REMOVE r.embedding, r.embeddingHash, r.embeddingNorm
WITH a, b, r
WHERE r.anchor = true
DELETE r
RETURN collect(DISTINCT a.key) + collect(DISTINCT b.key) AS endpointKeys
