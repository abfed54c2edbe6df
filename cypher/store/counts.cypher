// Record totals of the workspace (anchors are not records).
// @param workspace  the workspace this store serves
RETURN
  COUNT { MATCH (d:Document {workspace: $workspace}) } AS documents,
  COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.anchor IS NULL } AS chunks,
  COUNT { MATCH (e:Entity {workspace: $workspace}) WHERE e.anchor IS NULL } AS entities,
  COUNT {
    MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
    WHERE r.anchor IS NULL
  } AS relationships,
  COUNT { MATCH (c:Community {workspace: $workspace}) WHERE c.anchor IS NULL } AS communities,
  COUNT { MATCH (d:Document {workspace: $workspace}) WHERE d.status = 'failed' } AS failedDocuments,
  COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.status = 'failed' } AS failedChunks,
  COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.status = 'partial' } AS partialChunks
