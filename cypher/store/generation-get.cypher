// The workspace's current write generation (see generation-bump.cypher); null before any write.
// @param workspace  the workspace this store serves
OPTIONAL MATCH (g:Counter {workspace: $workspace, name: 'generation'})
RETURN g.token AS generation
