// All relationship records by key (or only those waiting for a summary).
// @param workspace  the workspace this store serves
// @param needingSummary  true to list only relationships whose description needs summarising
MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity)
WHERE r.anchor IS NULL AND (NOT $needingSummary OR r.needsSummary = true)
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, fragments: r.fragments,
        keywords: r.keywords, weight: r.weight, sourceChunkIds: r.sourceChunkIds,
        fragmentsHash: r.fragmentsHash, needsSummary: r.needsSummary} AS relationship
ORDER BY r.key
