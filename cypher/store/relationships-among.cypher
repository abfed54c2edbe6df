// The relationship records with both endpoints among the keys (the edges inside a node set),
// strongest first (ties by key).
// @param workspace  the workspace this store serves
// @param keys  entity keys
// @param limit  most relationships returned
MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity {workspace: $workspace})
WHERE a.key IN $keys AND b.key IN $keys AND r.anchor IS NULL
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, fragments: r.fragments,
        keywords: r.keywords, weight: r.weight, sourceChunkIds: r.sourceChunkIds,
        fragmentsHash: r.fragmentsHash, needsSummary: r.needsSummary} AS relationship
ORDER BY r.weight DESC, r.key
LIMIT $limit
