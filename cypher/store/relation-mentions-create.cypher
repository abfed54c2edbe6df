// Writes relationship mentions as (:Chunk)-[:HAS_RELATION_MENTION]->(:RelationMention) nodes:
// a mention belongs to an entity pair, which may have no RELATED edge (yet). Rows are grouped by
// chunk, so each chunk is looked up once rather than once per mention.
// @param workspace  the workspace this store serves
// @param rows  list of {chunkId, mentions}; mentions a list of {relationshipKey, sourceKey, targetKey, description, keywords, strength, ord}
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunkId})
USING INDEX c:Chunk(workspace, id)
UNWIND row.mentions AS mention
CREATE (c)-[:HAS_RELATION_MENTION]->(:RelationMention {
  workspace: $workspace,
  chunkId: row.chunkId,
  relationshipKey: mention.relationshipKey,
  sourceKey: mention.sourceKey,
  targetKey: mention.targetKey,
  description: mention.description,
  keywords: mention.keywords,
  strength: mention.strength,
  ord: mention.ord
})
