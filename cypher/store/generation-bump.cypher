// Gives the workspace a new write generation: the last statement of every write transaction, so a
// process holding cached reads of the workspace (see generation-cache.ts) can tell, with one small
// read, whether anything was written since. A random token, so deleting and re-creating the
// workspace never brings back an old generation.
// @param workspace  the workspace this store serves
MERGE (g:Counter {workspace: $workspace, name: 'generation'})
SET g.token = randomUUID()
