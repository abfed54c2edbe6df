// One hop of a neighbourhood walk: entities related to the frontier and not yet known, each ranked
// by its strongest relationship to the frontier (ties by key).
// @param workspace  the workspace this store serves
// @param frontier  entity keys the hop starts from
// @param known  entity keys already in the neighbourhood (left out)
// @param limit  most entities returned
MATCH (e:Entity {workspace: $workspace})
WHERE e.key IN $frontier
MATCH (e)-[r:RELATED]-(n:Entity)
WHERE r.anchor IS NULL AND n.anchor IS NULL AND NOT n.key IN $known
WITH n.key AS key, max(r.weight) AS strongest
RETURN key
ORDER BY strongest DESC, key
LIMIT $limit
