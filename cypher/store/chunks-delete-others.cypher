// Deletes documents' chunks whose id is not kept, with their mentions and vectors.
// @param workspace  the workspace this store serves
// @param rows  list of {docId, keepIds}: a document id and the ids of its chunks that stay
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, docId: row.docId})
WHERE NOT c.id IN row.keepIds
OPTIONAL MATCH (c)-[:HAS_RELATION_MENTION]->(m:RelationMention)
DETACH DELETE c, m
