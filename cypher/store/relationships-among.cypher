// The relationships with both endpoints among the keys (the edges inside a node set), strongest
// first (ties by key): endpoints, weight and description only (a neighbourhood draws thousands).
// @param workspace  the workspace this store serves
// @param keys  entity keys
// @param limit  most relationships returned
MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity {workspace: $workspace})
WHERE a.key IN $keys AND b.key IN $keys AND r.anchor IS NULL
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, weight: r.weight}
       AS relationship
ORDER BY r.weight DESC, r.key
LIMIT $limit
