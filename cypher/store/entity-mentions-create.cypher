// Writes entity mentions as (:Chunk)-[:MENTIONS]->(:Entity) edges. An entity that has no record
// yet gets an anchor node, so the mention (the source of truth) is never dropped. Rows are grouped
// by chunk, so each chunk is looked up once rather than once per mention.
// @param workspace  the workspace this store serves
// @param rows  list of {chunkId, mentions}; mentions a list of {entityKey, name, type, description, ord}
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunkId})
USING INDEX c:Chunk(workspace, id)
UNWIND row.mentions AS mention
MERGE (e:Entity {workspace: $workspace, key: mention.entityKey})
ON CREATE SET e.anchor = true
CREATE (c)-[:MENTIONS {name: mention.name, type: mention.type, description: mention.description, ord: mention.ord}]->(e)
