// All metadata of the workspace (for migration).
// @param workspace  the workspace this store serves
MATCH (m:Meta {workspace: $workspace})
RETURN m.key AS key, m.value AS value
ORDER BY key
