// Exact cosine ranking of the allowed entity vectors (brute force, used for small allow sets).
// Neo4j's cosine is normalised to [0, 1] as (1 + cos) / 2; the store converts it back.
// @param workspace  the workspace this store serves
// @param ids  allowed Entity keys
// @param query  query vector
// @param topK  how many to return
UNWIND $ids AS id
MATCH (n:Entity {workspace: $workspace, key: id})
USING INDEX n:Entity(workspace, key)
WHERE n.embeddingNorm > 0 AND size(n.embedding) = size($query)
WITH n.key AS id, vector.similarity.cosine(n.embedding, $query) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $topK
