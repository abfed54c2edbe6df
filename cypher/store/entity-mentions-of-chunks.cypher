// The stored entity mentions of these chunks, in the order they were merged.
// @param workspace  the workspace this store serves
// @param chunkIds  chunk ids
MATCH (c:Chunk {workspace: $workspace})
USING INDEX c:Chunk(workspace, id)
WHERE c.id IN $chunkIds
MATCH (c)-[m:MENTIONS]->(e:Entity)
RETURN {entityKey: e.key, chunkId: c.id, name: m.name, type: m.type, description: m.description} AS mention
ORDER BY c.mergeSeq, m.ord
