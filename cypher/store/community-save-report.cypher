// Saves one community's report (null clears it); returns its id, so a missing community is noticed.
// @param workspace  the workspace this store serves
// @param id  community id
// @param reportHash  contentHash the report was written for
// @param reportJson  the whole report as JSON, or null
// @param title  report title, or null
// @param summary  report summary, or null
// @param rating  report rating, or null
// @param report  report markdown, or null
MATCH (c:Community {workspace: $workspace, id: $id})
WHERE c.anchor IS NULL
SET c.reportHash = $reportHash,
    c.reportJson = $reportJson,
    c.title = $title,
    c.summary = $summary,
    c.rating = $rating,
    c.report = $report
RETURN c.id AS id
