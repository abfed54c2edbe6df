// Removes community vectors; an anchor node left with nothing is deleted.
// @param workspace  the workspace this store serves
// @param ids  Community ids
UNWIND $ids AS id
MATCH (n:Community {workspace: $workspace, id: id})
USING INDEX n:Community(workspace, id)
REMOVE n.embedding, n.embeddingHash, n.embeddingNorm
WITH n
WHERE n.anchor = true AND NOT EXISTS { (n)--() }
DELETE n
