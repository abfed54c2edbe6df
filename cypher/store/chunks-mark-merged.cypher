// Marks chunks merged and records when (mergeSeq orders mentions like insertion order); returns
// the ids found, so a missing chunk is noticed.
// @param workspace  the workspace this store serves
// @param rows  list of {id, mergeSeq}, mergeSeq reserved from the "merge" counter
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.id})
WHERE c.anchor IS NULL
SET c.status = 'merged', c.error = null, c.rawOutput = null, c.mergeSeq = row.mergeSeq
RETURN c.id AS id
