// Relationship records with at least one endpoint among the keys, by key.
// @param workspace  the workspace this store serves
// @param keys  entity keys
MATCH (e:Entity {workspace: $workspace})
WHERE e.key IN $keys
MATCH (e)-[r:RELATED]-(:Entity)
WHERE r.anchor IS NULL
WITH DISTINCT r
MATCH (a:Entity)-[r]->(b:Entity)
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, fragments: r.fragments,
        keywords: r.keywords, weight: r.weight, sourceChunkIds: r.sourceChunkIds,
        fragmentsHash: r.fragmentsHash, needsSummary: r.needsSummary} AS relationship
ORDER BY r.key
