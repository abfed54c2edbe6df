// Deletes documents with their chunks, chunk vectors (properties of the chunks), full-text
// entries (the index follows the nodes) and mentions.
// @param workspace  the workspace this store serves
// @param docIds  document ids
MATCH (d:Document {workspace: $workspace})
USING INDEX d:Document(workspace, id)
WHERE d.id IN $docIds
CALL (d) {
  MATCH (c:Chunk {workspace: $workspace, docId: d.id})
  USING INDEX c:Chunk(workspace, docId)
  OPTIONAL MATCH (c)-[:HAS_RELATION_MENTION]->(m:RelationMention)
  DETACH DELETE c, m
}
DETACH DELETE d
