// Removes the stored mentions of chunks before they are written again; returns the entity keys
// that were mentioned, whose anchors may now be orphans.
// @param workspace  the workspace this store serves
// @param chunkIds  chunk ids
UNWIND $chunkIds AS chunkId
MATCH (c:Chunk {workspace: $workspace, id: chunkId})
USING INDEX c:Chunk(workspace, id)
CALL (c) {
  OPTIONAL MATCH (c)-[m:MENTIONS]->(e:Entity)
  DELETE m
  RETURN collect(DISTINCT e.key) AS keys
}
CALL (c) {
  OPTIONAL MATCH (c)-[:HAS_RELATION_MENTION]->(r:RelationMention)
  DETACH DELETE r
}
UNWIND keys AS key
RETURN collect(DISTINCT key) AS entityKeys
