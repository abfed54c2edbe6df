// Relationship records in the order of the keys asked for; unknown keys and anchors are skipped.
// @param workspace  the workspace this store serves
// @param keys  relationship keys
UNWIND range(0, size($keys) - 1) AS position
MATCH (a:Entity)-[r:RELATED {key: $keys[position]}]->(b:Entity)
WHERE r.workspace = $workspace AND r.anchor IS NULL
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, fragments: r.fragments,
        keywords: r.keywords, weight: r.weight, sourceChunkIds: r.sourceChunkIds,
        fragmentsHash: r.fragmentsHash, needsSummary: r.needsSummary} AS relationship
ORDER BY position
