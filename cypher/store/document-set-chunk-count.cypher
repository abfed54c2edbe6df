// Records how many chunks a document has; returns its id, so a missing document is noticed.
// @param workspace  the workspace this store serves
// @param id  document id
// @param chunkCount  number of chunks
MATCH (d:Document {workspace: $workspace, id: $id})
USING INDEX d:Document(workspace, id)
SET d.chunkCount = $chunkCount
RETURN d.id AS id
