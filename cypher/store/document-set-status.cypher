// Sets a document's status and error; returns its id, so a missing document is noticed.
// @param workspace  the workspace this store serves
// @param id  document id
// @param status  pending | processing | processed | failed
// @param error  error message or null
// @param updatedAt  ISO timestamp of the change
MATCH (d:Document {workspace: $workspace, id: $id})
SET d.status = $status, d.error = $error, d.updatedAt = $updatedAt
RETURN d.id AS id
