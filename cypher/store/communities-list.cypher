// Community records in the order they were stored.
// @param workspace  the workspace this store serves
MATCH (c:Community {workspace: $workspace})
WHERE c.anchor IS NULL
RETURN {id: c.id, level: c.level, parentId: c.parentId, childIds: c.childIds, entityKeys: c.entityKeys,
        contentHash: c.contentHash, reportJson: c.reportJson, reportHash: c.reportHash} AS community
ORDER BY c.ordinal
