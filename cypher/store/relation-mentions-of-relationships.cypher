// The stored mentions of these relationships, in the order they were merged.
// @param workspace  the workspace this store serves
// @param keys  relationship keys
MATCH (r:RelationMention {workspace: $workspace})
WHERE r.relationshipKey IN $keys
MATCH (c:Chunk)-[:HAS_RELATION_MENTION]->(r)
RETURN {relationshipKey: r.relationshipKey, sourceKey: r.sourceKey, targetKey: r.targetKey, chunkId: c.id,
        description: r.description, keywords: r.keywords, strength: r.strength} AS mention
ORDER BY c.mergeSeq, r.ord
