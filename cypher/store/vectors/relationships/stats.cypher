// How many relationship vectors the workspace holds (counted up to `limit`, so the cost stays
// bounded) and their dimension (null when there are none).
// @param workspace  the workspace this store serves
// @param limit  stop counting here
MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
WHERE r.embedding IS NOT NULL
WITH r
LIMIT $limit
RETURN count(r) AS count, max(size(r.embedding)) AS dimension
