// The most connected entities of the workspace: name, type, number of relationships and of
// source passages.
// @param workspace  the workspace (filled in by `kgrag cypher`)
// @param limit?  how many entities (default 25)
MATCH (e:Entity {workspace: $workspace})
WHERE e.anchor IS NULL
WITH e, COUNT { (e)-[r:RELATED]-(:Entity) WHERE r.anchor IS NULL } AS degree
RETURN e.name AS entity, e.type AS type, degree, size(e.sourceChunkIds) AS passages
ORDER BY degree DESC, entity
LIMIT coalesce($limit, 25)
