// How many entity vectors the workspace holds (counted up to `limit`, so the cost stays bounded)
// and their dimension (null when there are none).
// @param workspace  the workspace this store serves
// @param limit  stop counting here
MATCH (n:Entity {workspace: $workspace})
WHERE n.embedding IS NOT NULL
WITH n
LIMIT $limit
RETURN count(n) AS count, max(size(n.embedding)) AS dimension
