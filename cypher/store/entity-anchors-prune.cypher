// Deletes anchor entities that no longer hold anything: no edge and no vector.
// @param workspace  the workspace this store serves
// @param keys  entity keys to look at
UNWIND $keys AS key
MATCH (e:Entity {workspace: $workspace, key: key})
USING INDEX e:Entity(workspace, key)
WHERE e.anchor = true AND e.embedding IS NULL AND NOT EXISTS { (e)--() }
DELETE e
