// Deletes entity records. An entity still mentioned by a chunk or touched by a RELATED edge keeps
// an anchor node (its record and vector are dropped); the others are deleted with their edges.
// @param workspace  the workspace this store serves
// @param keys  entity keys
UNWIND $keys AS key
MATCH (e:Entity {workspace: $workspace, key: key})
USING INDEX e:Entity(workspace, key)
WITH e, EXISTS { (e)<-[:MENTIONS]-(:Chunk) } OR EXISTS { (e)-[:RELATED]-(:Entity) } AS referenced
FOREACH (_ IN CASE WHEN referenced THEN [1] ELSE [] END |
  SET e = {workspace: $workspace, key: e.key, anchor: true}
)
WITH e, referenced
WHERE NOT referenced
DETACH DELETE e
