// Number of relationships of each entity (a self-loop counts once, unknown keys count 0).
// @param workspace  the workspace this store serves
// @param keys  entity keys
UNWIND $keys AS key
OPTIONAL MATCH (e:Entity {workspace: $workspace, key: key})-[r:RELATED]-(:Entity)
WHERE r.anchor IS NULL
RETURN key, count(DISTINCT r) AS degree
