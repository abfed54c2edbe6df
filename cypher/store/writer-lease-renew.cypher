// Extends this writer's lease; 0 renewed means it was lost (expired and taken by another writer).
// @param workspace  the workspace this store serves
// @param owner  this writer's id
// @param ttlMs  how long the lease lasts from now
OPTIONAL MATCH (l:WriterLease {workspace: $workspace})
WHERE l.owner = $owner
SET l.expiresAt = timestamp() + $ttlMs
RETURN count(l) AS renewed
