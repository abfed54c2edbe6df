// The stored mentions of these entities, in the order they were merged.
// @param workspace  the workspace this store serves
// @param keys  entity keys
MATCH (e:Entity {workspace: $workspace})
WHERE e.key IN $keys
MATCH (c:Chunk)-[m:MENTIONS]->(e)
RETURN {entityKey: e.key, chunkId: c.id, name: m.name, type: m.type, description: m.description} AS mention
ORDER BY c.mergeSeq, m.ord
