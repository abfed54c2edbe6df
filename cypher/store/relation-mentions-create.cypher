// Writes relationship mentions as (:Chunk)-[:HAS_RELATION_MENTION]->(:RelationMention) nodes:
// a mention belongs to an entity pair, which may have no RELATED edge (yet).
// @param workspace  the workspace this store serves
// @param rows  list of {chunkId, relationshipKey, sourceKey, targetKey, description, keywords, strength, ord}
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunkId})
USING INDEX c:Chunk(workspace, id)
CREATE (c)-[:HAS_RELATION_MENTION]->(:RelationMention {
  workspace: $workspace,
  chunkId: row.chunkId,
  relationshipKey: row.relationshipKey,
  sourceKey: row.sourceKey,
  targetKey: row.targetKey,
  description: row.description,
  keywords: row.keywords,
  strength: row.strength,
  ord: row.ord
})
