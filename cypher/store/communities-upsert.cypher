// Stores community records (vectors of kept ids stay). The report is kept whole as JSON, and its
// title, summary, rating and markdown are also plain properties for browsing in Neo4j.
// @param workspace  the workspace this store serves
// @param rows  list of {id, ordinal, level, parentId, childIds, entityKeys, contentHash, reportHash, reportJson, title, summary, rating, report}
UNWIND $rows AS row
MERGE (c:Community {workspace: $workspace, id: row.id})
SET c.ordinal = row.ordinal,
    c.level = row.level,
    c.parentId = row.parentId,
    c.childIds = row.childIds,
    c.entityKeys = row.entityKeys,
    c.contentHash = row.contentHash,
    c.reportHash = row.reportHash,
    c.reportJson = row.reportJson,
    c.title = row.title,
    c.summary = row.summary,
    c.rating = row.rating,
    c.report = row.report
REMOVE c.anchor
