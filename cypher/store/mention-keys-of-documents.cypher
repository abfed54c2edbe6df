// Entity and relationship keys mentioned in the chunks of these documents: what must be re-folded
// once the documents are gone.
// @param workspace  the workspace this store serves
// @param docIds  document ids
MATCH (c:Chunk {workspace: $workspace})
USING INDEX c:Chunk(workspace, docId)
WHERE c.docId IN $docIds
WITH collect(c) AS chunks
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:MENTIONS]->(e:Entity)
  RETURN collect(DISTINCT e.key) AS entityKeys
}
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:HAS_RELATION_MENTION]->(m:RelationMention)
  RETURN collect(DISTINCT m.relationshipKey) AS relationshipKeys
}
RETURN entityKeys, relationshipKeys
