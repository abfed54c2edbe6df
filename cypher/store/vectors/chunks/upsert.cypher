// Stores chunk vectors as float lists on the Chunk nodes (an unknown id gets an anchor node).
// @param workspace  the workspace this store serves
// @param rows  list of {id, vector, textHash, norm}
UNWIND $rows AS row
MERGE (n:Chunk {workspace: $workspace, id: row.id})
ON CREATE SET n.anchor = true
SET n.embedding = row.vector, n.embeddingHash = row.textHash, n.embeddingNorm = row.norm
