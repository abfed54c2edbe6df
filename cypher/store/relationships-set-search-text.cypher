// Fills in searchTerms on relationship records that still lack them, and drops the retired
// searchText. An edge upserted meanwhile already has fresh terms, which are kept; returns how
// many edges were filled.
// @param workspace  the workspace this store serves
// @param rows  list of {key, searchTerms}
UNWIND $rows AS row
MATCH (:Entity)-[r:RELATED {key: row.key}]->(:Entity)
WHERE r.workspace = $workspace AND r.searchTerms IS NULL
SET r.searchTerms = row.searchTerms
REMOVE r.searchText
RETURN count(r) AS filled
