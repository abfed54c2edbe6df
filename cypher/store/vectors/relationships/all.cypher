// Every relationship vector of the workspace, in id order: read once per write generation into
// memory, where it is ranked exactly (vector-memory.ts).
// @param workspace  the workspace this store serves
MATCH (:Entity {workspace: $workspace})-[r:RELATED]->(:Entity)
WHERE r.embeddingNorm > 0
RETURN r.key AS id, r.embedding AS vector
ORDER BY id
