// Exact cosine ranking of the allowed relationship vectors (brute force, for small allow sets).
// Neo4j's cosine is normalised to [0, 1] as (1 + cos) / 2; the store converts it back.
// @param workspace  the workspace this store serves
// @param ids  allowed relationship keys
// @param query  query vector
// @param topK  how many to return
UNWIND $ids AS id
MATCH (:Entity)-[r:RELATED {key: id}]->(:Entity)
WHERE r.workspace = $workspace AND r.embeddingNorm > 0 AND size(r.embedding) = size($query)
WITH r.key AS id, vector.similarity.cosine(r.embedding, $query) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $topK
