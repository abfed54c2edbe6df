// Rebuilds the NEXT_CHUNK chain of each document in index order.
// @param workspace  the workspace this store serves
// @param rows  document ids
UNWIND $rows AS docId
CALL (docId) {
  MATCH (c:Chunk {workspace: $workspace, docId: docId})
  USING INDEX c:Chunk(workspace, docId)
  OPTIONAL MATCH (c)-[old:NEXT_CHUNK]->(:Chunk)
  DELETE old
  WITH DISTINCT c
  ORDER BY c.index
  WITH collect(c) AS chunks
  UNWIND range(0, size(chunks) - 2) AS i
  WITH chunks[i] AS current, chunks[i + 1] AS next
  CREATE (current)-[:NEXT_CHUNK]->(next)
}
