// BM25 (Lucene) search over entity names, aliases and descriptions (anchors have none, so never match).
// The index spans all workspaces: the store over-fetches and keeps this workspace's hits.
// @param workspace  the workspace this store serves
// @param query  Lucene query built from the user's words (special characters escaped)
// @param fetch  how many hits to take from the index
// @param topK  how many to return
CALL db.index.fulltext.queryNodes('kgrag_entity_names', $query, {limit: $fetch}) YIELD node, score
WITH collect({id: node.key, workspace: node.workspace, score: score}) AS hits
RETURN size(hits) AS fetched,
  [h IN hits WHERE h.workspace = $workspace | {id: h.id, score: h.score}][0..$topK] AS matches
