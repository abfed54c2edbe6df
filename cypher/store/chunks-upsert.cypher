// Stores a document's chunks. A new chunk starts 'pending'; a kept chunk (same id, same text)
// keeps its state and mentions and only moves. An anchor chunk becomes a real one.
// @param workspace  the workspace this store serves
// @param docId  document id
// @param rows  list of {id, index, text, tokens, start, end}
MATCH (d:Document {workspace: $workspace, id: $docId})
UNWIND $rows AS row
MERGE (c:Chunk {workspace: $workspace, id: row.id})
SET c.docId = $docId,
    c.index = row.index,
    c.text = row.text,
    c.tokens = row.tokens,
    c.start = row.start,
    c.end = row.end,
    c.status = coalesce(c.status, 'pending')
REMOVE c.anchor
MERGE (d)-[:HAS_CHUNK]->(c)
