// BM25 (Lucene) search over relationship search terms (endpoint keys, keywords, description, stemmed;
// anchors have none, so never match). The index spans all workspaces: the store asks for `fetch`
// hits, keeps those of this workspace and allow list, and asks for more when needed.
// @param workspace  the workspace this store serves
// @param query  Lucene query built from the user's words (special characters escaped)
// @param fetch  how many hits to take from the index
// @param allow?  allowed relationship keys, or null for all
// @param topK  how many to return
CALL db.index.fulltext.queryRelationships('kgrag_relationship_terms', $query, {limit: $fetch})
YIELD relationship, score
WITH collect({id: relationship.key, workspace: relationship.workspace, score: score}) AS hits
RETURN size(hits) AS fetched,
  [h IN hits WHERE h.workspace = $workspace AND ($allow IS NULL OR h.id IN $allow)
    | {id: h.id, score: h.score}][0..$topK] AS matches
