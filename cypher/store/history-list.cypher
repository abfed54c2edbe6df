// History entries in the order they were written, of one key or all.
// @param workspace  the workspace this store serves
// @param key?  entity or relationship key, or null for all
MATCH (h:History {workspace: $workspace})
WHERE $key IS NULL OR h.key = $key
RETURN {kind: h.kind, key: h.key, action: h.action, oldDescription: h.oldDescription,
        newDescription: h.newDescription, cause: h.cause, at: h.at} AS entry
ORDER BY h.seq
