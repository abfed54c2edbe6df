// How many entity vectors the workspace holds (counted up to `limit`, so the cost stays bounded)
// and their dimension (null when there are none). Counted by the small embeddingNorm, and the
// dimension read from one vector: every vector of a namespace has the same dimension (see
// vectorDimension), and reading thousands of float lists made this statement slow.
// @param workspace  the workspace this store serves
// @param limit  stop counting here
MATCH (n:Entity {workspace: $workspace})
WHERE n.embeddingNorm IS NOT NULL
WITH n
LIMIT $limit
WITH collect(n) AS found
RETURN size(found) AS count, CASE WHEN size(found) = 0 THEN null ELSE size(found[0].embedding) END AS dimension
