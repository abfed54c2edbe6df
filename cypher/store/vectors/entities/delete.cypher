// Removes entity vectors; an anchor node left with nothing is deleted.
// @param workspace  the workspace this store serves
// @param ids  Entity keys
UNWIND $ids AS id
MATCH (n:Entity {workspace: $workspace, key: id})
USING INDEX n:Entity(workspace, key)
REMOVE n.embedding, n.embeddingHash, n.embeddingNorm
WITH n
WHERE n.anchor = true AND NOT EXISTS { (n)--() }
DELETE n
