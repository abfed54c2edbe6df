// Saves communities' reports (a null report clears it), many per statement; returns the ids saved,
// so a missing community is noticed.
// @param workspace  the workspace this store serves
// @param rows  [{id, reportHash, reportJson, title, summary, rating, report}]: the report as JSON and its readable parts (null when cleared)
UNWIND $rows AS row
MATCH (c:Community {workspace: $workspace, id: row.id})
USING INDEX c:Community(workspace, id)
WHERE c.anchor IS NULL
SET c.reportHash = row.reportHash,
    c.reportJson = row.reportJson,
    c.title = row.title,
    c.summary = row.summary,
    c.rating = row.rating,
    c.report = row.report
RETURN c.id AS id
