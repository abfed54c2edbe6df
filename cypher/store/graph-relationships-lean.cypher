// Every relationship record by key in the lean form embedding and communities read: no fragments,
// no provenance.
// @param workspace  the workspace this store serves
MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity)
WHERE r.anchor IS NULL
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, keywords: r.keywords,
        weight: r.weight} AS relationship
ORDER BY r.key
