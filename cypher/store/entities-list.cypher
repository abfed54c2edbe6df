// All entity records by key (or only those waiting for a summary).
// @param workspace  the workspace this store serves
// @param needingSummary  true to list only entities whose description needs summarising
MATCH (e:Entity {workspace: $workspace})
WHERE e.anchor IS NULL AND (NOT $needingSummary OR e.needsSummary = true)
RETURN {key: e.key, name: e.name, type: e.type, description: e.description, fragments: e.fragments,
        sourceChunkIds: e.sourceChunkIds, fragmentsHash: e.fragmentsHash, needsSummary: e.needsSummary,
        aliases: e.aliases} AS entity
ORDER BY e.key
