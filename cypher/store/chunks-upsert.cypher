// Stores documents' chunks. A new chunk starts 'pending'; a kept chunk (same id, same text)
// keeps its state and mentions and only moves. An anchor chunk becomes a real one.
// @param workspace  the workspace this store serves
// @param rows  list of {docId, id, index, text, tokens, start, end}
UNWIND $rows AS row
MATCH (d:Document {workspace: $workspace, id: row.docId})
USING INDEX d:Document(workspace, id)
MERGE (c:Chunk {workspace: $workspace, id: row.id})
SET c.docId = row.docId,
    c.index = row.index,
    c.text = row.text,
    c.tokens = row.tokens,
    c.start = row.start,
    c.end = row.end,
    c.status = coalesce(c.status, 'pending')
REMOVE c.anchor
MERGE (d)-[:HAS_CHUNK]->(c)
