// Marks chunks merged (or partial, when their extraction was cut short) and records when
// (mergeSeq orders mentions like insertion order); returns the ids found, so a missing chunk is
// noticed.
// @param workspace  the workspace this store serves
// @param rows  list of {id, mergeSeq, status, error, rawOutput}; mergeSeq from the "merge" counter; status merged or partial
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.id})
USING INDEX c:Chunk(workspace, id)
WHERE c.anchor IS NULL
SET c.status = row.status, c.error = row.error, c.rawOutput = row.rawOutput, c.mergeSeq = row.mergeSeq
RETURN c.id AS id
