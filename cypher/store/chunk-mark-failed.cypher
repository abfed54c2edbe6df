// Marks a chunk failed, keeping the raw model output for inspection; returns its id.
// @param workspace  the workspace this store serves
// @param id  chunk id
// @param error  why it failed
// @param rawOutput  the model output that could not be parsed, or null
MATCH (c:Chunk {workspace: $workspace, id: $id})
WHERE c.anchor IS NULL
SET c.status = 'failed', c.error = $error, c.rawOutput = $rawOutput
RETURN c.id AS id
