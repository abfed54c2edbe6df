// Fills in searchText on relationship records that still lack it. An edge upserted meanwhile
// already has fresh text, which is kept; returns how many edges were filled.
// @param workspace  the workspace this store serves
// @param rows  list of {key, searchText}
UNWIND $rows AS row
MATCH (:Entity)-[r:RELATED {key: row.key}]->(:Entity)
WHERE r.workspace = $workspace AND r.searchText IS NULL
SET r.searchText = row.searchText
RETURN count(r) AS filled
