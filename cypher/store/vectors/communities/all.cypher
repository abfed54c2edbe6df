// Every Community vector of the workspace, in id order: read once per write generation into memory,
// where it is ranked exactly (vector-memory.ts).
// @param workspace  the workspace this store serves
MATCH (n:Community {workspace: $workspace})
WHERE n.embeddingNorm > 0
RETURN n.id AS id, n.embedding AS vector
ORDER BY id
