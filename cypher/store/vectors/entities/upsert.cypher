// Stores entity vectors as float lists on the Entity nodes (an unknown id gets an anchor node).
// @param workspace  the workspace this store serves
// @param rows  list of {id, vector, textHash, norm}
UNWIND $rows AS row
MERGE (n:Entity {workspace: $workspace, key: row.id})
ON CREATE SET n.anchor = true
SET n.embedding = row.vector, n.embeddingHash = row.textHash, n.embeddingNorm = row.norm
