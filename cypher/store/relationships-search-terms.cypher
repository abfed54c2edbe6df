// The search terms of every relationship of the workspace (see search-terms.ts), read once per write
// generation for the in-memory BM25 that ranks like the embedded store (text-search.ts).
// @param workspace  the workspace this store serves
MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
WHERE r.anchor IS NULL AND r.searchTerms IS NOT NULL
RETURN r.key AS id, r.searchTerms AS text
