// Writes entity mentions as (:Chunk)-[:MENTIONS]->(:Entity) edges. An entity that has no record
// yet gets an anchor node, so the mention (the source of truth) is never dropped.
// @param workspace  the workspace this store serves
// @param rows  list of {chunkId, entityKey, name, type, description, ord}
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunkId})
USING INDEX c:Chunk(workspace, id)
MERGE (e:Entity {workspace: $workspace, key: row.entityKey})
ON CREATE SET e.anchor = true
CREATE (c)-[:MENTIONS {name: row.name, type: row.type, description: row.description, ord: row.ord}]->(e)
