// Deletes RELATED edges by key; returns their endpoint keys, whose anchors may now be orphans.
// @param workspace  the workspace this store serves
// @param keys  relationship keys
UNWIND $keys AS key
MATCH (a:Entity)-[r:RELATED {key: key}]->(b:Entity)
WHERE r.workspace = $workspace
DELETE r
RETURN collect(DISTINCT a.key) + collect(DISTINCT b.key) AS endpointKeys
