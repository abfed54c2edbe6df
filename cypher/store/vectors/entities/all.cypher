// Every Entity vector of the workspace, in id order: read once per write generation into memory,
// where it is ranked exactly (vector-memory.ts).
// @param workspace  the workspace this store serves
MATCH (n:Entity {workspace: $workspace})
WHERE n.embeddingNorm > 0
RETURN n.key AS id, n.embedding AS vector
ORDER BY id
