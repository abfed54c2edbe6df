// The text of every chunk of the workspace, read once per write generation for the in-memory BM25
// that ranks like the embedded store (text-search.ts).
// @param workspace  the workspace this store serves
MATCH (c:Chunk {workspace: $workspace})
WHERE c.anchor IS NULL AND c.text IS NOT NULL
RETURN c.id AS id, c.text AS text
