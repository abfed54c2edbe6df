// Stores relationship vectors on RELATED edges that already exist, found through the key index
// (kgrag_related_key) instead of MERGE on both endpoints, which locked and expanded hub entities.
// Returns the ids stored; the others go to upsert.cypher, which anchors them.
// @param workspace  the workspace this store serves
// @param rows  list of {id, vector, textHash, norm}
UNWIND $rows AS row
MATCH ()-[r:RELATED {key: row.id}]->()
WHERE r.workspace = $workspace
SET r.embeddingHash = row.textHash, r.embeddingNorm = row.norm
WITH r, row
CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.vector)
RETURN row.id AS id
