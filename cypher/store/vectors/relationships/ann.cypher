// Approximate nearest relationships from the RELATED vector index, which spans all workspaces:
// the store asks for `fetch` hits, keeps those of this workspace (and of the allow list), and asks
// for more while fewer than topK survive and the index had more to give.
// @param workspace  the workspace this store serves
// @param fetch  how many hits to take from the index
// @param query  query vector
// @param allow?  allowed relationship keys, or null for all
// @param topK  how many to return
CALL db.index.vector.queryRelationships('kgrag_related_embedding', $fetch, $query)
YIELD relationship, score
WITH collect({id: relationship.key, workspace: relationship.workspace, score: score}) AS hits
RETURN size(hits) AS fetched,
  [h IN hits WHERE h.workspace = $workspace AND ($allow IS NULL OR h.id IN $allow)
    | {id: h.id, score: h.score}][0..$topK] AS matches
