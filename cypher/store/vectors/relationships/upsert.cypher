// Stores relationship vectors on the RELATED edges, as 32-bit float lists (see the other upserts).
// A key with no edge yet gets an anchor edge (and anchor endpoints), so the vector is kept until
// its record arrives.
// @param workspace  the workspace this store serves
// @param rows  list of {id, sourceKey, targetKey, vector, textHash, norm}
UNWIND $rows AS row
MERGE (a:Entity {workspace: $workspace, key: row.sourceKey})
ON CREATE SET a.anchor = true
MERGE (b:Entity {workspace: $workspace, key: row.targetKey})
ON CREATE SET b.anchor = true
MERGE (a)-[r:RELATED {workspace: $workspace, key: row.id}]->(b)
ON CREATE SET r.anchor = true
SET r.embeddingHash = row.textHash, r.embeddingNorm = row.norm
WITH r, row
CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.vector)
