// Relationship records without searchTerms (written before relationships were full-text indexed,
// or with the retired unstemmed searchText), a page at a time, so that opening the workspace can
// fill them in and make them searchable.
// @param workspace  the workspace this store serves
// @param limit  how many to return
MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity)
WHERE r.workspace = $workspace AND r.anchor IS NULL AND r.searchTerms IS NULL
RETURN {key: r.key, sourceKey: a.key, targetKey: b.key, description: r.description, fragments: r.fragments,
        keywords: r.keywords, weight: r.weight, sourceChunkIds: r.sourceChunkIds,
        fragmentsHash: r.fragmentsHash, needsSummary: r.needsSummary} AS relationship
LIMIT $limit
