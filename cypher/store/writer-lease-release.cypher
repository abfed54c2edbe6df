// Gives the lease back, if this writer still holds it.
// @param workspace  the workspace this store serves
// @param owner  this writer's id
MATCH (l:WriterLease {workspace: $workspace})
WHERE l.owner = $owner
DELETE l
