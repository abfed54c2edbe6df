// Inserts or replaces relationship records: one RELATED edge per unordered pair, directed from
// sourceKey to targetKey (the canonical order). Missing endpoints get anchor nodes. searchTerms is
// what the kgrag_relationship_terms full-text index reads (searchText is its retired, unstemmed form).
// @param workspace  the workspace this store serves
// @param rows  list of {key, sourceKey, targetKey, description, fragments, keywords, weight, sourceChunkIds, fragmentsHash, needsSummary, searchTerms}
UNWIND $rows AS row
MERGE (a:Entity {workspace: $workspace, key: row.sourceKey})
ON CREATE SET a.anchor = true
MERGE (b:Entity {workspace: $workspace, key: row.targetKey})
ON CREATE SET b.anchor = true
MERGE (a)-[r:RELATED {workspace: $workspace, key: row.key}]->(b)
SET r.description = row.description,
    r.fragments = row.fragments,
    r.keywords = row.keywords,
    r.weight = row.weight,
    r.sourceChunkIds = row.sourceChunkIds,
    r.fragmentsHash = row.fragmentsHash,
    r.needsSummary = row.needsSummary,
    r.searchTerms = row.searchTerms
REMOVE r.anchor, r.searchText
