// Entity records in the order of the keys asked for; unknown keys and anchors are skipped.
// @param workspace  the workspace this store serves
// @param keys  entity keys
UNWIND range(0, size($keys) - 1) AS position
MATCH (e:Entity {workspace: $workspace, key: $keys[position]})
USING INDEX e:Entity(workspace, key)
WHERE e.anchor IS NULL
RETURN {key: e.key, name: e.name, type: e.type, description: e.description, fragments: e.fragments,
        sourceChunkIds: e.sourceChunkIds, fragmentsHash: e.fragmentsHash, needsSummary: e.needsSummary,
        aliases: e.aliases} AS entity
ORDER BY position
