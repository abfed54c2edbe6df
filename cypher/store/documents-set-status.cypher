// Sets documents' status and error; returns the ids found, so a missing document is noticed.
// @param workspace  the workspace this store serves
// @param rows  list of {id, status, error}; status pending | processing | processed | failed, error text or null
// @param updatedAt  ISO timestamp of the change
UNWIND $rows AS row
MATCH (d:Document {workspace: $workspace, id: row.id})
USING INDEX d:Document(workspace, id)
SET d.status = row.status, d.error = row.error, d.updatedAt = $updatedAt
RETURN d.id AS id
