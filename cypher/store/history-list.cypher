// History entries in the order they were written, of one key or all. A node holds a page of
// entries as JSON (`entries`); a node written by an older kgrag holds one entry as properties.
// @param workspace  the workspace this store serves
// @param key?  entity or relationship key, or null for all
MATCH (h:History {workspace: $workspace})
WHERE $key IS NULL OR h.key = $key OR $key IN h.keys
RETURN h.entries AS entries,
  CASE WHEN h.entries IS NULL THEN
    {kind: h.kind, key: h.key, action: h.action, oldDescription: h.oldDescription,
     newDescription: h.newDescription, cause: h.cause, at: h.at}
  END AS entry
ORDER BY h.seq
