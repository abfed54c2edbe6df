// Exact cosine ranking of all chunk vectors of the workspace: the fallback when the vector
// index cannot serve the query (not created yet, not online, or another dimension).
// @param workspace  the workspace this store serves
// @param query  query vector
// @param topK  how many to return
MATCH (n:Chunk {workspace: $workspace})
WHERE n.embeddingNorm > 0 AND size(n.embedding) = size($query)
WITH n.id AS id, vector.similarity.cosine(n.embedding, $query) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $topK
