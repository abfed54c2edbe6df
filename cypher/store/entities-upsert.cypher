// Inserts or replaces entity records (an anchor node becomes a record).
// @param workspace  the workspace this store serves
// @param rows  list of {key, name, type, description, fragments, sourceChunkIds, fragmentsHash, needsSummary, aliases}
UNWIND $rows AS row
MERGE (e:Entity {workspace: $workspace, key: row.key})
SET e.name = row.name,
    e.type = row.type,
    e.description = row.description,
    e.fragments = row.fragments,
    e.sourceChunkIds = row.sourceChunkIds,
    e.fragmentsHash = row.fragmentsHash,
    e.needsSummary = row.needsSummary,
    e.aliases = row.aliases
REMOVE e.anchor
