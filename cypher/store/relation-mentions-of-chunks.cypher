// The stored relationship mentions of these chunks, in the order they were merged.
// @param workspace  the workspace this store serves
// @param chunkIds  chunk ids
MATCH (c:Chunk {workspace: $workspace})
USING INDEX c:Chunk(workspace, id)
WHERE c.id IN $chunkIds
MATCH (c)-[:HAS_RELATION_MENTION]->(r:RelationMention)
RETURN {relationshipKey: r.relationshipKey, sourceKey: r.sourceKey, targetKey: r.targetKey, chunkId: c.id,
        description: r.description, keywords: r.keywords, strength: r.strength} AS mention
ORDER BY c.mergeSeq, r.ord
