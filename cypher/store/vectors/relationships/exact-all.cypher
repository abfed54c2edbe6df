// Exact cosine ranking of all relationship vectors of the workspace: the fallback when the
// vector index cannot serve the query (not created yet, not online, or another dimension).
// @param workspace  the workspace this store serves
// @param query  query vector
// @param topK  how many to return
MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
WHERE r.embeddingNorm > 0 AND size(r.embedding) = size($query)
WITH r.key AS id, vector.similarity.cosine(r.embedding, $query) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $topK
