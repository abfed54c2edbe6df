// Deletes a document's chunks whose id is not kept, with their mentions and vectors.
// @param workspace  the workspace this store serves
// @param docId  document id
// @param keepIds  ids of the chunks that stay
MATCH (c:Chunk {workspace: $workspace, docId: $docId})
WHERE NOT c.id IN $keepIds
OPTIONAL MATCH (c)-[:HAS_RELATION_MENTION]->(m:RelationMention)
DETACH DELETE c, m
