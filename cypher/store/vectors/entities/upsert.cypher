// Stores entity vectors on the Entity nodes (an unknown id gets an anchor node), as 32-bit
// float lists through db.create.setNodeVectorProperty: half the bytes of a Cypher SET's 64-bit
// list in the store and the transaction log, as the embedded store keeps them.
// @param workspace  the workspace this store serves
// @param rows  list of {id, vector, textHash, norm}
UNWIND $rows AS row
MERGE (n:Entity {workspace: $workspace, key: row.id})
ON CREATE SET n.anchor = true
SET n.embeddingHash = row.textHash, n.embeddingNorm = row.norm
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
