// Every entity record by key in the lean form embedding and communities read: no fragments, no
// provenance (fragments repeat the description, so leaving them out roughly halves the transfer).
// @param workspace  the workspace this store serves
MATCH (e:Entity {workspace: $workspace})
WHERE e.anchor IS NULL
RETURN {key: e.key, name: e.name, type: e.type, description: e.description, aliases: e.aliases} AS entity
ORDER BY e.key
